#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A context's request to make the object of a record: run the class's designated initializer
/// (`ManagedObject/init(entity:insertInto:)`, which a subclass may override, as Core Data runs
/// it for fetched objects) without what only a new object needs.
///
/// A new object takes a temporary ID and looks up where its `@Managed` fields are; an object
/// made for a record (a fetch makes one per row) would then drop that ID for the record's and
/// look the fields up once per object. Instead the context points the current thread's request
/// at one on its stack (`withRequest(_:)`, once per fetch) and, for each object, moves the
/// record's ID into it and puts the fields' slots, looked up once for the entity, there too
/// (`make`); the base initializer moves the ID out and takes the slots (`pending(for:)`,
/// `claim(by:)`) when no context is given and the entity and class are the request's. The
/// object keeps the ID the store made for the row instead of making its own: one reference
/// to the entity fewer taken and dropped per object.
///
/// Between two objects the request is idle, and code that runs then (a value transformer, a
/// nested request of `ManagedObjectContext.object(with:)`, which sets its own and puts this
/// one back) makes new objects. An object made inside a subclass's initializer (before or
/// after it calls `super`) can see an active request: it is claimed once, by the first object
/// of the request's class and entity to finish the base initializer, which for any sane
/// initializer is the object being made. The context checks that the object it got is the
/// one that claimed the request, and otherwise makes it a fault of the record as it does any
/// object (see `make(_:bindings:through:)`'s result).
struct FaultConstruction {
    /// The record's ID, moved in while an object is being made for it and moved out by the
    /// initializer of the object that takes it; its entity is the one `entity` names.
    var objectID: ManagedObjectID?
    /// The home the object takes while it is made: its entity's without a context (the maker
    /// holds it; the object joins the context's home after).
    var home: Unmanaged<ObjectHome>?
    /// The entity whose objects may claim the request; nil between objects.
    var entity: ObjectIdentifier?
    /// The class whose objects may claim the request: the entity's.
    var type: ObjectIdentifier?
    /// Where the class's `@Managed` fields live and their properties' slots
    /// (`ManagedFieldTable.bindingBuffer(for:entity:)`, freed with the entity, which the request's
    /// maker holds while it is set).
    var bindings = UnsafeBufferPointer<ManagedFieldTable.Binding>(start: nil, count: 0)
    /// The object that claimed the request.
    var claimer: ObjectIdentifier?

    /// The current thread's request, as a pointer to it; nil when none is pending.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// Runs `body` with the current thread's request set to a new one, idle until `make`
    /// uses it (nil where threads have no local storage: objects are then made as new ones
    /// and given the record's ID after), and puts the previous request back after. A fetch
    /// sets it once for all its rows.
    @inline(__always)
    static func withRequest<R>(_ body: (UnsafeMutablePointer<FaultConstruction>?) throws -> R) rethrows -> R {
        guard let key else { return try body(nil) }
        var request = FaultConstruction()
        return try withUnsafeMutablePointer(to: &request) { request in
            let previous = pthread_getspecific(key)
            pthread_setspecific(key, request)
            defer { pthread_setspecific(key, previous) }
            return try body(request)
        }
    }

    /// Makes the object of `objectID` with its entity's class's designated initializer, with
    /// no context, through `request` (the current thread's, from `withRequest(_:)`); returns
    /// it and whether it claimed the request (it then has the record's ID, moved into it, and
    /// its `@Managed` slots bound; otherwise it has a temporary ID, and the caller gives it
    /// the record's).
    ///
    /// `bindings` are `ManagedFieldTable.bindingBuffer(for:entity:)` of the class and entity;
    /// `home` is the entity's home without a context, which the caller holds.
    @inline(__always)
    static func make(
        _ objectID: consuming ManagedObjectID, bindings: UnsafeBufferPointer<ManagedFieldTable.Binding>,
        home: Unmanaged<ObjectHome>, through request: UnsafeMutablePointer<FaultConstruction>?
    ) -> (object: ManagedObject, claimed: Bool) {
        // Borrowed: the ID holds the entity, in the request and then in the object.
        let entity = Unmanaged.passUnretained(objectID.entity)
        guard let request else {
            let object = entity._withUnsafeGuaranteedRef { $0.managedObjectClass.init(entity: $0, insertInto: nil) }
            withExtendedLifetime(objectID) {}
            return (object, false)
        }
        let type = entity._withUnsafeGuaranteedRef { $0.managedObjectClass }
        request.pointee.entity = entity._withUnsafeGuaranteedRef(ObjectIdentifier.init)
        request.pointee.objectID = consume objectID
        request.pointee.type = ObjectIdentifier(type)
        request.pointee.bindings = bindings
        request.pointee.home = home
        request.pointee.claimer = nil
        let object = entity._withUnsafeGuaranteedRef { type.init(entity: $0, insertInto: nil) }
        let claimed = request.pointee.claimer == ObjectIdentifier(object)
        request.pointee.entity = nil
        request.pointee.objectID = nil
        return (object, claimed)
    }

    /// The current thread's request when it is making an object of `entity` and no object
    /// claimed it; nil otherwise (the initializer then makes a new object).
    @inline(__always)
    static func pending(for entity: EntityDescription) -> UnsafeMutablePointer<FaultConstruction>? {
        guard let key, let pending = pthread_getspecific(key) else { return nil }
        let request = pending.assumingMemoryBound(to: FaultConstruction.self)
        guard request.pointee.claimer == nil, request.pointee.entity == ObjectIdentifier(entity),
              request.pointee.objectID != nil
        else { return nil }
        return request
    }

    /// Claims the request for `object` when it is of the request's class and none claimed it
    /// yet, and writes each of its `@Managed` fields' slot (as
    /// `ManagedObject.bindManagedProperties()` does, looking the bindings up itself); whether
    /// it did.
    @inline(__always)
    mutating func claim(by object: ManagedObject) -> Bool {
        guard claimer == nil, ObjectIdentifier(Swift.type(of: object)) == type else { return false }
        claimer = ObjectIdentifier(object)
        guard MemoryLayout<Managed<Int>>.size == MemoryLayout<Int8>.size else { return true }
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        for binding in bindings { (base + binding.offset).storeBytes(of: binding.slot, as: Int8.self) }
        return true
    }
}
