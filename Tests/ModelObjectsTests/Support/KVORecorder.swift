import Foundation
import ModelObjects
import SampleModels

// Recorders for the key-value-observing tests: every notification becomes one line of text in
// an ordered log, so a test can assert the exact sequence (order, count, kind, old and new
// values, indexes, prior flag) with a single `#expect(log.entries == [...])`.

/// An ordered list of notification descriptions, shared by one or more observers.
final class KVOEventLog {
    private(set) var entries: [String] = []

    func append(_ entry: String) {
        entries.append(entry)
    }

    func removeAll() {
        entries.removeAll()
    }

    /// A change handler for ``ModelObject/observe(_:options:changeHandler:)`` that records into
    /// this log as an observer of `keyPath` would, prefixed with `name` when given. It captures
    /// the log, never the observed object.
    func handler(for keyPath: String, name: String? = nil) -> (ModelObject, KeyValueChange) -> Void {
        { [self] _, change in
            append(kvoPrefix(name) + kvoDescribe(keyPath: keyPath, change: change))
        }
    }
}

/// An observer that writes each notification it receives into a log.
///
/// Entries look like `"fullName setting old=Ada Lovelace new=Augusta Lovelace prior=false"`;
/// when the recorder has a name, the entry starts with `"<name>: "`, so that several observers
/// can share one log and the order among them shows.
final class ChangeLog: KeyValueObserver {
    let name: String?
    let log: KVOEventLog
    /// The objects the notifications were about (as identities, so the log keeps nothing alive).
    private(set) var objects: [ObjectIdentifier] = []
    /// The contexts the notifications carried.
    private(set) var contexts: [UnsafeMutableRawPointer?] = []
    /// The changes themselves, for checks the text does not cover.
    private(set) var changes: [KeyValueChange] = []
    /// Called after each notification is recorded; receives this recorder, the key path, the
    /// object and the change, so that it needs to capture none of them.
    var onChange: ((ChangeLog, String, ModelObject, KeyValueChange) -> Void)?

    init(_ name: String? = nil, log: KVOEventLog = KVOEventLog()) {
        self.name = name
        self.log = log
    }

    /// Everything recorded in the log (which other observers may share).
    var entries: [String] { log.entries }

    func observeValue(
        forKeyPath keyPath: String, of object: ModelObject, change: KeyValueChange,
        context: UnsafeMutableRawPointer?
    ) {
        log.append(kvoPrefix(name) + kvoDescribe(keyPath: keyPath, change: change))
        objects.append(ObjectIdentifier(object))
        contexts.append(context)
        changes.append(change)
        onChange?(self, keyPath, object, change)
    }
}

/// Records the changes delivered to a typed observation.
final class KVOTypedLog<Value> {
    private(set) var changes: [ObservedChange<Value>] = []
    private(set) var objects: [ObjectIdentifier] = []

    func append(_ change: ObservedChange<Value>, of object: AnyObject) {
        changes.append(change)
        objects.append(ObjectIdentifier(object))
    }
}

/// Distinct context pointers for registrations. They are never dereferenced.
enum KVOContext {
    static var first: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 0x1000)! }
    static var second: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 0x2000)! }
    static var third: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 0x3000)! }
}

/// Holds an object strongly until `release()`; lets one observer drop another mid-delivery.
final class KVOHolder<Object: AnyObject> {
    var object: Object?

    init(_ object: Object?) {
        self.object = object
    }

    func release() {
        object = nil
    }
}

/// Moves non-`Sendable` test fixtures into `DispatchQueue.concurrentPerform`. The tests use it
/// only to exercise what the library documents as thread-safe (registration and removal).
struct KVOUnchecked<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// A list that several threads append to.
final class KVOLockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.lock()
        storage.append(element)
        lock.unlock()
    }

    var elements: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// Keeps objects alive up to this call (observers are held weakly by observed objects).
func kvoKeepAlive(_ objects: AnyObject...) {
    withExtendedLifetime(objects) {}
}

// MARK: - Formatting

func kvoPrefix(_ name: String?) -> String {
    name.map { "\($0): " } ?? ""
}

/// One line for a change: `"<keyPath> <kind> old=<old> new=<new>[ indexes=[…]] prior=<bool>"`.
func kvoDescribe(keyPath: String, change: KeyValueChange) -> String {
    var text = "\(keyPath) \(change.kind) old=\(kvoDescribe(change.oldValue)) new=\(kvoDescribe(change.newValue))"
    if let indexes = change.indexes {
        text += " indexes=\(Array(indexes))"
    }
    text += " prior=\(change.isPrior)"
    return text
}

/// A readable, deterministic form of a key-value value: nil as `nil`, model objects by name,
/// arrays in order as `[a, b]`, sets sorted as `{a, b}`.
func kvoDescribe(_ value: Any?) -> String {
    guard var value else { return "nil" }
    if let hashable = value as? AnyHashable {
        value = hashable.base
    }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional?:
        return mirror.children.first.map { kvoDescribe($0.value) } ?? "nil"
    case .collection?:
        return "[" + mirror.children.map { kvoDescribe($0.value) }.joined(separator: ", ") + "]"
    case .set?:
        return "{" + mirror.children.map { kvoDescribe($0.value) }.sorted().joined(separator: ", ") + "}"
    default:
        break
    }
    if value is NSNull { return "NSNull" }
    if let object = value as? ModelObject { return kvoName(of: object) }
    return "\(value)"
}

/// The name a test gives a model object: an employee's first name, a department's or any
/// other object's `name`.
func kvoName(of object: ModelObject) -> String {
    if let employee = object as? Employee { return employee.firstName }
    if let department = object as? Department { return department.name }
    if case let name as String = (try? object.value(forKey: "name")) ?? nil { return name }
    return object.description
}

/// A flag one thread sets and another polls.
final class KVOFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    private var spins = 0

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Burns a little time, to vary where a racing call lands.
    func spin() {
        lock.lock()
        spins &+= 1
        lock.unlock()
    }
}
