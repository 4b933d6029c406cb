import Observation
import Synchronization

/// The Observation framework's side of one object: its registrar and the keys read inside a
/// `withObservationTracking` scope, each with the registrar key paths it was read under.
///
/// An object has one only once a tracking scope has read it, so that sets of other objects
/// never reach a registrar. Touched only by the thread that owns the object (its reads and
/// changes), like the changes in flight of ``ObservationState``.
package final class ObservationTrackedKeys {
    let registrar = ObservationRegistrar()
    /// The tracked keys, each with a key path trackings registered it under: the property's own
    /// (`\Employee.salary`, from a typed accessor) or a synthesized one for reads by string key
    /// (a ``Derived`` key's dependencies). A key read both ways has two slots; a change of the
    /// key goes to both. Objects are read under few keys, so a scan beats hashing.
    @exclusivity(unchecked) private var keys: [String] = []
    @exclusivity(unchecked) private var paths: [ObservationTrackedPath] = []
    /// `paths` again, unretained (`paths` keeps them): a change calls them without reference
    /// counting, which was most of the cost of a set that trackings follow.
    @exclusivity(unchecked) private var unretainedPaths: [Unmanaged<ObservationTrackedPath>] = []
    /// Probe registrars retired by scopes that read the object: each holds such a scope's
    /// `onChange` until it fires, and lets it go when the object goes (see
    /// ``ObservationTrackingProbe``).
    @exclusivity(unchecked) private var probeRegistrars: [ObservationRegistrar] = []

    /// Keeps a retired probe registrar for as long as the object lives.
    func keep(probeRegistrar: ObservationRegistrar) {
        probeRegistrars.append(probeRegistrar)
    }

    /// Registers a read of `key`, a property of `Object` read through its own key path, with
    /// the current tracking scope.
    func access<Object: ModelObject, Value>(_ object: ModelObject, key: String, keyPath: KeyPath<Object, Value>) {
        // The access goes through the tracked path, which holds `Object`'s `Observable`
        // conformance: called from here, the registrar would look it up on every read.
        let path = trackedPath(key, under: keyPath) ?? add(key, TypedObservationTrackedPath(keyPath: keyPath))
        path._withUnsafeGuaranteedRef { $0.access(registrar, object) }
    }

    /// Registers a read of `key` by string with the current tracking scope.
    func access(_ object: ModelObject, key: String) {
        let path = KeyedObservationTrackedPath(key: key)
        if trackedPath(key, under: path.keyPath) == nil { _ = add(key, path) }
        registrar.access(object, keyPath: path.keyPath)
    }

    /// The path `key` is tracked under `keyPath` with, unretained (`paths` keeps it).
    private func trackedPath(_ key: String, under keyPath: AnyKeyPath) -> Unmanaged<ObservationTrackedPath>? {
        // A typed getter hands over the same key path object on every read: finding it by
        // identity spares comparing strings and key paths.
        for path in unretainedPaths where path._withUnsafeGuaranteedRef({ $0.anyKeyPath === keyPath }) { return path }
        for index in keys.indices where keys[index] == key && paths[index].anyKeyPath == keyPath {
            return unretainedPaths[index]
        }
        return nil
    }

    private func add(_ key: String, _ path: ObservationTrackedPath) -> Unmanaged<ObservationTrackedPath> {
        keys.append(key)
        paths.append(path)
        let unretained = Unmanaged.passUnretained(path)
        unretainedPaths.append(unretained)
        return unretained
    }

    /// Runs `body`, which changes `key`, between the notifications of the key's trackings;
    /// just runs it for a key never tracked.
    func change(_ object: ModelObject, key: String, _ body: () throws -> Void) rethrows {
        var found: Int?
        for index in keys.indices where keys[index] == key {
            guard found == nil else {
                // Tracked under two key paths (read both typed and by key).
                willSet(object, key: key)
                defer { didSet(object, key: key) }
                try body()
                return
            }
            found = index
        }
        guard let found else { return try body() }
        // One registrar call for both notifications: each call from this unspecialized code
        // looks up the class's conformance and retains the object.
        try unretainedPaths[found]._withUnsafeGuaranteedRef { try $0.withMutation(registrar, object, body) }
    }

    /// Tells the trackings of `key` that it is about to change; nothing for a key never tracked.
    func willSet(_ object: ModelObject, key: String) {
        for index in keys.indices where keys[index] == key {
            unretainedPaths[index]._withUnsafeGuaranteedRef { $0.willSet(registrar, object) }
        }
    }

    /// Tells the trackings of `key` that it changed.
    func didSet(_ object: ModelObject, key: String) {
        for index in keys.indices where keys[index] == key {
            unretainedPaths[index]._withUnsafeGuaranteedRef { $0.didSet(registrar, object) }
        }
    }

    /// Tells every tracking of the object that all its keys are about to change.
    func willSetAll(_ object: ModelObject) {
        for path in paths { path.willSet(registrar, object) }
    }

    /// Tells every tracking of the object that all its keys changed.
    func didSetAll(_ object: ModelObject) {
        for path in paths { path.didSet(registrar, object) }
    }
}

/// A registrar key path of a tracked key. Each subclass knows its key path's root and value
/// types, so that code holding only the object and the key can call the registrar's generic
/// methods; the base class, never instantiated alone, calls nothing.
class ObservationTrackedPath {
    let anyKeyPath: AnyKeyPath

    init(anyKeyPath: AnyKeyPath) {
        self.anyKeyPath = anyKeyPath
    }

    func access(_ registrar: ObservationRegistrar, _ object: ModelObject) {}

    func willSet(_ registrar: ObservationRegistrar, _ object: ModelObject) {}

    func didSet(_ registrar: ObservationRegistrar, _ object: ModelObject) {}

    /// Runs `body` between ``willSet(_:_:)`` and ``didSet(_:_:)``.
    func withMutation(_ registrar: ObservationRegistrar, _ object: ModelObject, _ body: () throws -> Void) rethrows {
        willSet(registrar, object)
        defer { didSet(registrar, object) }
        try body()
    }
}

/// A property's own key path, rooted at its declaring class (the object is an instance of it).
///
/// Generic over an `Observable` class rather than a model class: the conformance is then one
/// of the class's generic arguments, found once when the path is made, where a `ModelObject`
/// parameter would look it up (`swift_getWitnessTable`) on every change.
final class TypedObservationTrackedPath<Object: Observable & AnyObject, Value>: ObservationTrackedPath {
    let keyPath: KeyPath<Object, Value>

    init(keyPath: KeyPath<Object, Value>) {
        self.keyPath = keyPath
        super.init(anyKeyPath: keyPath)
    }

    override func access(_ registrar: ObservationRegistrar, _ object: ModelObject) {
        withBorrowed(object, as: Object.self) { registrar.access($0, keyPath: keyPath) }
    }

    override func willSet(_ registrar: ObservationRegistrar, _ object: ModelObject) {
        withBorrowed(object, as: Object.self) { registrar.willSet($0, keyPath: keyPath) }
    }

    override func didSet(_ registrar: ObservationRegistrar, _ object: ModelObject) {
        withBorrowed(object, as: Object.self) { registrar.didSet($0, keyPath: keyPath) }
    }

    override func withMutation(
        _ registrar: ObservationRegistrar, _ object: ModelObject, _ body: () throws -> Void
    ) rethrows {
        try withBorrowed(object, as: Object.self) { try registrar.withMutation(of: $0, keyPath: keyPath, body) }
    }
}

/// Calls `body` with `object`, an instance of `Object`, as one, without reference counting:
/// `unsafeDowncast` hands over a new reference that the caller retains and releases around the
/// registrar's generic call, which took a tenth of a tracked set; a guaranteed reference does
/// not.
@inline(__always)
func withBorrowed<Object: AnyObject, Result>(
    _ object: ModelObject, as _: Object.Type, _ body: (Object) throws -> Result
) rethrows -> Result {
    try Unmanaged<Object>.fromOpaque(Unmanaged.passUnretained(object).toOpaque())._withUnsafeGuaranteedRef(body)
}

/// The key path of a key read by string, `\ModelObject.[observedKey: "salary"]`: key paths
/// with a subscript argument are equal when their arguments are, so each key has one.
final class KeyedObservationTrackedPath: ObservationTrackedPath {
    let keyPath: KeyPath<ModelObject, Int>

    init(key: String) {
        keyPath = \ModelObject.[observedKey: key]
        super.init(anyKeyPath: keyPath)
    }

    override func access(_ registrar: ObservationRegistrar, _ object: ModelObject) {
        registrar.access(object, keyPath: keyPath)
    }

    override func willSet(_ registrar: ObservationRegistrar, _ object: ModelObject) {
        registrar.willSet(object, keyPath: keyPath)
    }

    override func didSet(_ registrar: ObservationRegistrar, _ object: ModelObject) {
        registrar.didSet(object, keyPath: keyPath)
    }
}

extension ModelObject {
    /// The subscript behind ``KeyedObservationTrackedPath``; never called (registrars only compare
    /// key paths).
    fileprivate subscript(observedKey key: String) -> Int { 0 }
}

/// Finds out whether the current thread is inside a `withObservationTracking` scope.
///
/// Observation keeps the scope in a thread-local value it does not publish; the only way to
/// reach it is a registrar's `access`, which adds the key path to the scope's access list and so
/// hashes it. The probe's key path has a subscript argument whose hash counts: when the count
/// moves across the call, a scope took the access. (A hash on another thread at the same moment
/// can make the answer a false yes, which only costs a registration that no scope records.)
///
/// A scope that took the access stores its `onChange` in the probe's registrar, where it stays
/// until one of the scope's keys changes, as the probe's key path never does. So a yes retires
/// the registrar: the caller hands it to the object the scope reads, and the closure goes when
/// that object does (a registrar's end drops its observers without calling them), as it does
/// from the object's own registrar.
enum ObservationTrackingProbe {
    private struct Subject: Observable, Sendable {
        subscript(marker _: Marker) -> Int { 0 }
    }

    private struct Marker: Hashable, Sendable {
        static func == (lhs: Marker, rhs: Marker) -> Bool { true }

        func hash(into hasher: inout Hasher) {
            ObservationTrackingProbe.hashes.add(1, ordering: .relaxed)
        }
    }

    private static let hashes = Atomic<Int>(0)
    private static let current = Mutex(ObservationRegistrar())
    private static let keyPath: KeyPath<Subject, Int> & Sendable = \Subject.[marker: Marker()]

    /// The registrar a tracking scope just took a probe access of, nil outside scopes; the
    /// caller keeps it alive with the object it registers next (``ObservationTrackedKeys/keep(probeRegistrar:)``).
    /// Outside scopes costs what an `@Observable` property's getter costs, plus an uncontended lock.
    static func enrolledRegistrar() -> ObservationRegistrar? {
        // The access runs under the lock: copying the registrar out would retain and release it
        // on every read, which costs more than the lock (the access calls back into nothing but
        // the marker's hash).
        current.withLock { registrar -> ObservationRegistrar? in
            let before = hashes.load(ordering: .relaxed)
            registrar.access(Subject(), keyPath: keyPath)
            guard hashes.load(ordering: .relaxed) != before else { return nil }
            let enrolled = registrar
            registrar = ObservationRegistrar()
            return enrolled
        }
    }
}
