import Foundation
import Synchronization
import Testing
@testable import ModelObjects
import SampleModels

/// A class no secure-decoding test allows: its initializers count their runs, which must stay 0.
final class RefusedProbe: ModelObject {
    static let initializations = Atomic<Int>(0)
    @Attribute var payload = ""

    required init(coder: Coder) throws {
        Self.initializations.add(1, ordering: .relaxed)
        try super.init(coder: coder)
    }

    required init() {
        Self.initializations.add(1, ordering: .relaxed)
        super.init()
    }
}

/// A class the tests allow, to show the counter works when the class is allowed.
final class AllowedProbe: ModelObject {
    static let initializations = Atomic<Int>(0)
    @Attribute var payload = ""

    required init(coder: Coder) throws {
        Self.initializations.add(1, ordering: .relaxed)
        try super.init(coder: coder)
    }

    required init() { super.init() }
}

/// A probe for the unsecured path, kept apart from the refused probe's counter.
final class UnguardedProbe: ModelObject {
    static let initializations = Atomic<Int>(0)

    required init(coder: Coder) throws {
        Self.initializations.add(1, ordering: .relaxed)
        try super.init(coder: coder)
    }

    required init() { super.init() }
}

/// A class whose `init(coder:)` swallows the errors of decoding its payload.
final class ForgivingHolder: ModelObject {
    var payload: Any?

    required init(coder: Coder) throws {
        payload = try? coder.decodeObject(forKey: "payload")
        try super.init(coder: coder)
    }

    required init() { super.init() }
}

/// A class whose `init(coder:)` decodes its payload by key and lets errors through.
final class StrictHolder: ModelObject {
    var payload: Any?

    required init(coder: Coder) throws {
        payload = try coder.decodeObject(forKey: "payload")
        try super.init(coder: coder)
    }

    required init() { super.init() }
}

/// A subclass of the sample Employee, allowed through its superclass.
final class Contractor: Employee {}

/// Secure decoding: every object's class is checked against the allowed classes before the
/// object is made, wherever it sits in the graph.
@Suite struct SecureDecodingTests {
    let refusedName = String(reflecting: RefusedProbe.self)

    func expectRefused(
        _ className: String, _ decode: () throws -> Any?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            _ = try decode()
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .classNotAllowed && error.className == className
                && (error as NSError).code == 4864
        }
    }

    /// A department whose employees array holds a probe where an employee should be.
    func hostileDepartmentArchive(probe: String = String(reflecting: RefusedProbe.self)) throws -> Data {
        try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "name", value: .uid(2)), (key: "employees", value: .uid(3)), (key: "$class", value: .uid(4))]),
            .string("Research"),
            .dictionary([(key: "NS.objects", value: .array([.uid(5)])), (key: "$class", value: .uid(6))]),
            classDictionary("SampleModels.Department"),
            .dictionary([(key: "payload", value: .uid(2)), (key: "$class", value: .uid(7))]),
            classDictionary("NSArray"),
            classDictionary(probe),
        ])
    }

    @Test func nestedObjectOfARefusedClassIsNeverCreated() throws {
        let data = try hostileDepartmentArchive()
        let before = RefusedProbe.initializations.load(ordering: .relaxed)
        expectRefused(refusedName) {
            try KeyedUnarchiver.unarchivedObject(
                ofClasses: [.class(Department.self), .class(Employee.self), .array], from: data)
        }
        #expect(RefusedProbe.initializations.load(ordering: .relaxed) == before)
    }

    @Test func refusedRootIsNeverCreated() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: AllowedProbe())
        let renamed = try keyedArchive(objects: [
            .string("$null"), .dictionary([(key: "$class", value: .uid(2))]), classDictionary(refusedName),
        ])
        let before = RefusedProbe.initializations.load(ordering: .relaxed)
        expectRefused(refusedName) { try KeyedUnarchiver.unarchivedObject(ofClasses: [.class(AllowedProbe.self)], from: renamed) }
        #expect(RefusedProbe.initializations.load(ordering: .relaxed) == before)

        let allowedBefore = AllowedProbe.initializations.load(ordering: .relaxed)
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClasses: [.class(AllowedProbe.self)], from: data)
        #expect(decoded is AllowedProbe)
        #expect(AllowedProbe.initializations.load(ordering: .relaxed) == allowedBefore + 1)
    }

    @Test func classMappedUnderAnAllowedLookingNameIsStillRefused() throws {
        let data = try keyedArchive(objects: [
            .string("$null"), .dictionary([(key: "$class", value: .uid(2))]), classDictionary("Innocent"),
        ])
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(RefusedProbe.self, forClassName: "Innocent")
        unarchiver.allowedClasses = [.class(Employee.self)]
        let before = RefusedProbe.initializations.load(ordering: .relaxed)
        expectRefused("Innocent") { try unarchiver.decodeObject(forKey: "root") }
        #expect(RefusedProbe.initializations.load(ordering: .relaxed) == before)
    }

    @Test func containersMustBeNamed() throws {
        let department = Department(name: "Research")
        department.employees = [Employee(firstName: "Ada", lastName: "Lovelace", employeeID: 1, salary: 1)]
        let data = try KeyedArchiver.archivedData(withRootObject: department)
        expectRefused("NSArray") {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [.class(Department.self), .class(Employee.self)], from: data)
        }
        expectRefused(String(reflecting: Employee.self)) {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [.class(Department.self), .array], from: data)
        }
        let dictionary = try KeyedArchiver.archivedData(withRootObject: ["a": [1, 2]])
        expectRefused("NSArray") { try KeyedUnarchiver.unarchivedObject(ofClasses: [.dictionary], from: dictionary) }
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClasses: [.dictionary, .array], from: dictionary)
        #expect(decoded as? [String: [Int]] == ["a": [1, 2]])
    }

    @Test func namedClassesAndTheirSubclassesDecode() throws {
        let department = Department(name: "Research", budget: Decimal(string: "12.5") ?? 0)
        let contractor = Contractor(firstName: "Grace", lastName: "Hopper", employeeID: 2, salary: 3)
        department.employees = [contractor]
        let data = try KeyedArchiver.archivedData(withRootObject: department, format: .xml)
        let decoded = try KeyedUnarchiver.unarchivedObject(
            ofClasses: [.class(Department.self), .class(Employee.self), .array], from: data)
        let copy = try #require(decoded as? Department)
        #expect(copy.name == "Research" && copy.budget == Decimal(string: "12.5"))
        #expect(copy.employees.first is Contractor)
        #expect(copy.employees.first?.firstName == "Grace")
    }

    @Test func valueClassesAreAlwaysAllowed() throws {
        let values: [Any] = ["text", 3, 2.5, Date(timeIntervalSinceReferenceDate: 7), Data([1]), UUID(), NSNull()]
        let data = try KeyedArchiver.archivedData(withRootObject: values)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofClasses: [.array], from: data) as? [Any])
        #expect(decoded.count == values.count)
    }

    @Test func setAllowsCountedSetAsFoundationDoesButNotTheReverse() throws {
        let counted = try KeyedArchiver.archivedData(withRootObject: CountedSet(["a", "a"]))
        #expect(try KeyedUnarchiver.unarchivedObject(ofClasses: [.set], from: counted) is CountedSet<AnyHashable>)
        let plain = try KeyedArchiver.archivedData(withRootObject: Set(["a"]))
        expectRefused("NSSet") { try KeyedUnarchiver.unarchivedObject(ofClasses: [.countedSet], from: plain) }
    }

    @Test func withoutAllowedClassesEveryKnownClassDecodes() throws {
        let data = try hostileDepartmentArchive(probe: String(reflecting: UnguardedProbe.self))
        let before = UnguardedProbe.initializations.load(ordering: .relaxed)
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: Department.self, from: data) }
        // The type check on the employees property comes only after the object was made.
        #expect(UnguardedProbe.initializations.load(ordering: .relaxed) == before + 1)
    }

    /// A probe inside each kind of allowed container, which must refuse it all the same.
    @Test(arguments: [
        ("NSArray", [(key: "NS.objects", value: PropertyListValue.array([.uid(2)]))]),
        ("NSSet", [(key: "NS.objects", value: .array([.uid(2)]))]),
        ("NSCountedSet", [(key: "NS.count", value: .integer(1)), (key: "NS.object0", value: .uid(2)), (key: "NS.count0", value: .integer(1))]),
        ("NSDictionary", [(key: "NS.keys", value: .array([.uid(2)])), (key: "NS.objects", value: .array([.uid(5)]))]),
        ("NSDictionary", [(key: "NS.keys", value: .array([.uid(5)])), (key: "NS.objects", value: .array([.uid(2)]))]),
        ("NSURL", [(key: "NS.base", value: .uid(2)), (key: "NS.relative", value: .uid(5))]),
    ] as [(String, [(key: String, value: PropertyListValue)])])
    func refusedClassInsideAnAllowedContainerIsNeverCreated(
        container: String, body: [(key: String, value: PropertyListValue)]
    ) throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary(PropertyListDictionary(entries: body + [(key: "$class", value: .uid(4))])),
            .dictionary([(key: "$class", value: .uid(3))]),
            classDictionary(refusedName),
            classDictionary(container),
            .string("k"),
        ])
        let before = RefusedProbe.initializations.load(ordering: .relaxed)
        expectRefused(refusedName) {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [.array, .set, .dictionary], from: data)
        }
        #expect(RefusedProbe.initializations.load(ordering: .relaxed) == before)
    }

    @Test func orderedSetMustBeNamedAsSuch() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "NS.objects", value: .array([.uid(2)])), (key: "$class", value: .uid(3))]),
            .string("k"),
            classDictionary("NSOrderedSet"),
        ])
        expectRefused("NSOrderedSet") { try KeyedUnarchiver.unarchivedObject(ofClasses: [.array, .set], from: data) }
        #expect(try KeyedUnarchiver.unarchivedObject(ofClasses: [.orderedSet], from: data) as? [String] == ["k"])
    }

    @Test func refusalThroughACustomInitCoderIsReported() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "payload", value: .uid(3)), (key: "$class", value: .uid(2))]),
            classDictionary(String(reflecting: StrictHolder.self)),
            .dictionary([(key: "$class", value: .uid(4))]),
            classDictionary(refusedName),
        ])
        expectRefused(refusedName) {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [.class(StrictHolder.self)], from: data)
        }
    }

    @Test func refusalSwallowedByInitCoderStillFailsTheDecode() throws {
        let data = try keyedArchive(objects: [
            .string("$null"),
            .dictionary([(key: "payload", value: .uid(3)), (key: "$class", value: .uid(2))]),
            classDictionary(String(reflecting: ForgivingHolder.self)),
            .dictionary([(key: "$class", value: .uid(4))]),
            classDictionary(refusedName),
        ])
        let before = RefusedProbe.initializations.load(ordering: .relaxed)
        expectRefused(refusedName) {
            try KeyedUnarchiver.unarchivedObject(ofClasses: [.class(ForgivingHolder.self)], from: data)
        }
        #expect(RefusedProbe.initializations.load(ordering: .relaxed) == before)
    }

    @Test func objectsDecodedBeforeAllowedClassesWereSetAreCheckedAgain() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: UnguardedProbe())
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(try unarchiver.decodeObject(forKey: "root") is UnguardedProbe)
        unarchiver.allowedClasses = [.array]
        expectRefused(String(reflecting: UnguardedProbe.self)) { try unarchiver.decodeObject(forKey: "root") }
        unarchiver.allowedClasses = nil
        #expect(try unarchiver.decodeObject(forKey: "root") is UnguardedProbe)
    }
}
