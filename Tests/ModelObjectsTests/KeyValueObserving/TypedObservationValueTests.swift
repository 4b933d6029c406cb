import Foundation
import ModelObjects
import SampleModels
import Testing

/// A non-optional class-typed property and an existential one.
final class EmployeeHolder: ModelObject {
    @Attribute var employee = Employee()
    @Attribute var anything: Any = 0
}

/// Typed observation hands values of every layout to the handler as the property's type: small
/// trivial values, values stored out of line in `Any`, reference-counted values, optionals.
@Suite struct TypedObservationValueTests {
    @Test func valuesOfEveryLayoutArriveTyped() throws {
        let object = AllTypes()
        var rects: [CGRect?] = []
        var decimals: [Decimal?] = []
        var strings: [String?] = []
        var urls: [URL?] = []
        var int8s: [Int8?] = []
        let tokens = [
            try object.observe(\.rect, options: [.old, .new]) { _, change in rects += [change.oldValue, change.newValue] },
            try object.observe(\.decimal, options: [.new]) { _, change in decimals.append(change.newValue) },
            try object.observe(\.string, options: [.old, .new]) { _, change in strings += [change.oldValue, change.newValue] },
            try object.observe(\.url, options: [.new]) { _, change in urls.append(change.newValue) },
            try object.observe(\.int8, options: [.new]) { _, change in int8s.append(change.newValue) },
        ]
        object.rect = CGRect(x: 1, y: 2, width: 3, height: 4)
        object.decimal = Decimal(string: "12.34") ?? 0
        object.string = "héllo"
        object.url = URL(fileURLWithPath: "/tmp")
        try object.setValue(7, forKey: "int8")
        #expect(rects == [.zero, CGRect(x: 1, y: 2, width: 3, height: 4)])
        #expect(decimals == [Decimal(string: "12.34")])
        #expect(strings == ["", "héllo"])
        #expect(urls == [URL(fileURLWithPath: "/tmp")])
        #expect(int8s == [7])
        tokens.forEach { $0.invalidate() }
    }

    @Test func optionalValuesTakeTheGeneralConversion() throws {
        let object = AllTypes()
        var values: [Double??] = []
        let token = try object.observe(\.optionalDouble, options: [.old, .new]) { _, change in
            values += [change.oldValue, change.newValue]
        }
        object.optionalDouble = 2.5
        object.optionalDouble = nil
        #expect(values == [.some(nil), .some(2.5), .some(2.5), .some(nil)])
        token.invalidate()
    }

    @Test func aSubclassInstanceObservedThroughItsSuperclassKeyPath() throws {
        let manager: Employee = Manager()
        var salaries: [Double?] = []
        let token = try manager.observe(\.salary, options: [.new]) { employee, change in
            #expect(employee === manager)
            salaries.append(change.newValue)
        }
        manager.salary = 10
        #expect(salaries == [10])
        token.invalidate()
    }

    @Test func aClassTypedValueReceivesASubclassInstance() throws {
        let holder = EmployeeHolder()
        var received: [Employee] = []
        let token = try holder.observe(\.employee, options: [.new]) { _, change in
            if let employee = change.newValue { received.append(employee) }
        }
        let manager = Manager()
        holder.employee = manager
        #expect(received.count == 1)
        #expect(received.first === manager)
        token.invalidate()
    }

    @Test func anExistentialValueArrivesAsIs() throws {
        let holder = EmployeeHolder()
        var received: [String] = []
        let token = try holder.observe(\.anything, options: [.old, .new]) { _, change in
            received += [change.oldValue, change.newValue].map { "\($0.map { "\($0)" } ?? "nil")" }
        }
        holder.anything = "text"
        try holder.setValue(7, forKey: "anything")
        #expect(received == ["0", "text", "text", "7"])
        token.invalidate()
    }
}
