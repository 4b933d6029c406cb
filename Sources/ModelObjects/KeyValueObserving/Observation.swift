import Foundation
import Synchronization

/// One registration: an observer (or a handler) of a key path on a root object.
///
/// An observation listens to every (object, key) pair whose change can change the value at its
/// key path: each key along the path on the object it currently leads to, the keys those keys
/// depend on (``ModelObject/keyPathsForValuesAffectingValue(forKey:)``), recursively, and,
/// through to-many relationships, the rest of the path on every related object. When a key
/// that decides which objects come next changes, the observation re-attaches itself, so an old
/// department no longer reports once it is replaced.
final class Observation {
    /// The observed object. Not retained: the object invalidates its observations when it goes
    /// away (``ModelObject``'s deinitializer), and nothing reads this after invalidation.
    private unowned(unsafe) let observedObject: ModelObject
    /// The same, for passing to handlers without reference counting.
    private let observedObjectReference: Unmanaged<ModelObject>
    /// The observed object while the observation is in effect.
    var root: ModelObject? { isActive ? observedObject : nil }
    let keyPath: String
    let options: KeyValueObservingOptions
    let context: UnsafeMutableRawPointer?
    private weak var observer: (any KeyValueObserver)?
    private let handler: ((ModelObject, KeyValueChange) -> Void)?
    private(set) var isActive = true
    /// Orders observations by registration, which notifications follow.
    let sequenceNumber = Observation.nextSequenceNumber.wrappingAdd(1, ordering: .relaxed).oldValue
    private static let nextSequenceNumber = Atomic<UInt64>(0)
    /// The objects this observation has subscribed on.
    /// Not retained, and not weak either: a weak reference would move every observed object's
    /// reference counting to a slow side table. An object that goes away first tells its
    /// observations to forget it (``forget(_:)``), so these never dangle.
    private var subscribedObjects: [Unmanaged<ModelObject>] = []
    /// The descriptor of the observed key when the key path is one key the root's class
    /// declares, so that old and new values of dependent keys are read without parsing the
    /// path. Not retained: property tables keep their descriptors for the life of the process.
    private let keyDescriptor: Unmanaged<PropertyDescriptor>?
    /// A dependent key path (``ModelObject/keyPathsForValuesAffectingValue(forKey:)``) met while
    /// attaching that holds more than ``ModelObject/maximumObservedKeyPathLength`` keys; it is
    /// not followed, and registration throws.
    private(set) var tooLongDependentKeyPath: String?
    /// Called once when the observation ends (removed, or its object went away): an
    /// asynchronous sequence of changes finishes there.
    var invalidationHandler: (() -> Void)?

    init(
        root: ModelObject, keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, observer: (any KeyValueObserver)?,
        handler: ((ModelObject, KeyValueChange) -> Void)?
    ) {
        self.observedObject = root
        observedObjectReference = Unmanaged.passUnretained(root)
        self.keyPath = keyPath
        self.options = options
        self.context = context
        self.observer = observer
        self.handler = handler
        keyDescriptor = root.propertyTable.withDescriptor(forKey: keyPath) { Unmanaged.passUnretained($0) }
    }

    /// Whether this observation was made by `observer` (for `removeObserver`).
    func isRegistered(by observer: any KeyValueObserver) -> Bool {
        self.observer === observer
    }

    // MARK: Attaching

    /// Subscribes on every (object, key) pair the key path currently depends on.
    func attach() {
        guard isActive, let root else { return }
        var visited = Set<Visit>()
        expand(root, Substring(keyPath), direct: true, structural: false, visited: &visited)
    }

    /// Removes every subscription.
    func detach() {
        let objects = subscribedObjects
        subscribedObjects.removeAll()
        for object in objects {
            object.takeUnretainedValue().removeSubscriptions(of: self)
        }
    }

    /// Forgets an object that is going away; its subscriptions go with it.
    func forget(_ object: ModelObject) {
        let address = Unmanaged.passUnretained(object).toOpaque()
        subscribedObjects.removeAll { $0.toOpaque() == address }
    }

    /// Moves the subscriptions to the objects the key path leads to now.
    func reattach() {
        detach()
        attach()
    }

    /// Ends the observation for good.
    func invalidate() {
        guard isActive else { return }
        detach()
        observedObject.removeRegistration(self)
        isActive = false
        if let invalidationHandler {
            self.invalidationHandler = nil
            invalidationHandler()
        }
    }

    /// Throws ``KeyValueCodingError/Code/keyPathTooComplex`` when `path` holds more than
    /// ``ModelObject/maximumObservedKeyPathLength`` keys: subscribing nests one call per key.
    static func checkLength(of path: String, observing object: ModelObject) throws {
        guard !isWithinLength(Substring(path)) else { return }
        throw KeyValueCodingError(
            .keyPathTooComplex, key: path, className: String(reflecting: type(of: object)),
            message: "an observed key path may hold at most \(ModelObject.maximumObservedKeyPathLength) keys")
    }

    private static func isWithinLength(_ path: Substring) -> Bool {
        var keys = 1
        for byte in path.utf8 where byte == UInt8(ascii: ".") {
            keys += 1
            if keys > ModelObject.maximumObservedKeyPathLength { return false }
        }
        return true
    }

    private struct Visit: Hashable {
        let object: ObjectIdentifier
        let path: Substring
    }

    private func expand(
        _ object: ModelObject, _ path: Substring, direct: Bool, structural: Bool, visited: inout Set<Visit>
    ) {
        let (first, rest) = KeyValuePath.split(path)
        guard !first.isEmpty, first.utf8.first != UInt8(ascii: "@") else { return }
        guard visited.insert(Visit(object: ObjectIdentifier(object), path: path)).inserted else { return }
        let key = String(first)
        let isStructural = structural || rest != nil
        subscribe(object, key: key, direct: direct && rest == nil, structural: isStructural)
        for affecting in type(of: object).keyPathsForValuesAffectingValue(forKey: key) where affecting != key {
            guard Self.isWithinLength(Substring(affecting)) else {
                tooLongDependentKeyPath = tooLongDependentKeyPath ?? affecting
                continue
            }
            expand(object, Substring(affecting), direct: false, structural: isStructural, visited: &visited)
        }
        guard let rest else { return }
        expandValue(try? object.value(forKey: key), rest, direct: direct, structural: structural, visited: &visited)
    }

    private func expandValue(
        _ value: Any??, _ path: Substring, direct: Bool, structural: Bool, visited: inout Set<Visit>
    ) {
        guard let value = value ?? nil else { return }
        if let object = asModelObject(value) {
            expand(object, path, direct: direct, structural: structural, visited: &visited)
            return
        }
        guard let collection = value as? any KeyValueCollection else { return }
        var elementPath = path
        let (first, rest) = KeyValuePath.split(path)
        if first.utf8.first == UInt8(ascii: "@") {
            guard let rest, first != "@count" else { return }
            elementPath = rest
        }
        collection.forEachKeyValue { element in
            expandValue(element, elementPath, direct: false, structural: structural, visited: &visited)
        }
    }

    private func subscribe(_ object: ModelObject, key: String, direct: Bool, structural: Bool) {
        object.addSubscription(Subscription(observation: self, isDirect: direct, isStructural: structural), forKey: key)
        if !subscribedObjects.contains(where: { $0.toOpaque() == Unmanaged.passUnretained(object).toOpaque() }) {
            subscribedObjects.append(Unmanaged.passUnretained(object))
        }
    }

    // MARK: Delivering

    /// Sends `change` to the observer or handler; drops the observation if the observer is gone.
    func deliver(_ change: KeyValueChange) {
        guard isActive else { return }
        if let handler {
            observedObjectReference._withUnsafeGuaranteedRef { handler($0, change) }
        } else if let observer {
            observer.observeValue(forKeyPath: keyPath, of: observedObject, change: change, context: context)
        } else {
            invalidate()
        }
    }

    /// The current value at the whole key path, for old and new values of indirect changes.
    func currentValue() -> Any? {
        guard isActive else { return nil }
        if let keyDescriptor {
            return keyDescriptor._withUnsafeGuaranteedRef { descriptor in
                observedObjectReference._withUnsafeGuaranteedRef { descriptor.value(in: $0) }
            }
        }
        return (try? observedObject.value(forKeyPath: keyPath)) ?? nil
    }
}

/// An observation's interest in one key of one object.
struct Subscription {
    let observation: Observation
    /// The same observation, for reading without reference counting while a copy of the
    /// subscription list (which holds ``observation`` strongly) keeps it alive.
    let borrowedObservation: Unmanaged<Observation>
    /// The key is the last of the observed key path, on the object the path leads to: its changes
    /// pass through with their own kind (insertion, removal, …) and values.
    var isDirect: Bool
    /// A change of the key changes which objects the rest of the path leads to.
    var isStructural: Bool

    init(observation: Observation, isDirect: Bool, isStructural: Bool) {
        self.observation = observation
        borrowedObservation = Unmanaged.passUnretained(observation)
        self.isDirect = isDirect
        self.isStructural = isStructural
    }
}


