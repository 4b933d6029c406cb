import Foundation
import ModelObjects

extension ManagedObjectContext {
    /// The objects a request describes, registered with the context (one object per record).
    ///
    /// The store filters, orders and limits as far as it can translate the request; the rest is
    /// done in memory, with the same results either way. With
    /// ``FetchRequest/includesPendingChanges``, the context's unsaved inserts, changes and
    /// deletes count.
    ///
    /// - Throws: ``ModelError/Code/unknownEntity`` for an unknown entity name;
    ///   ``ModelError/Code/entityClassMismatch`` when no object of the entity (or of its
    ///   subentities the request includes) can be an `Object`;
    ///   `KeyValuePredicateError` or `KeyValueCodingError` from evaluating the predicate or
    ///   sorting in memory; ``PersistenceError`` from the store.
    /// - Returns: The objects, as `Object`s; objects of subentities whose class is not an
    ///   `Object` are left out.
    ///
    /// Corresponds to `-[NSManagedObjectContext executeFetchRequest:error:]`.
    public func fetch<Object>(_ request: FetchRequest<Object>) throws -> [Object] {
        var entityClass: ManagedObject.Type?
        if Object.self != ManagedObject.self, let entity = persistentStoreCoordinator.managedObjectModel.entity(named: request.entityName) {
            entityClass = entity.managedObjectClass
            var hierarchy = [entity], next = 0
            while request.includesSubentities && next < hierarchy.count {
                hierarchy += hierarchy[next].subentities
                next += 1
            }
            guard hierarchy.contains(where: { $0.managedObjectClass is Object.Type }) else {
                throw ModelError(
                    .entityClassMismatch, entity: entity.name,
                    message: "FetchRequest<\(Object.self)> names the entity \(entity.name), whose objects are "
                        + "\(entity.managedObjectClass), not \(Object.self)")
            }
        }
        let objects = try fetchObjects(request)
        // Usually every object is of the entity's class, an `Object`: the array is then taken as
        // it is (one look at each object's class), where casting each object would run the
        // generic cast and append (this function is not specialized for the caller's class).
        if Object.self == ManagedObject.self
            || entityClass.map({ entityClass in
                entityClass is Object.Type && objects.allSatisfy { ObjectIdentifier(type(of: $0)) == ObjectIdentifier(entityClass) }
            }) == true {
            // SAFETY: `Object` is a class and every element is an instance of it; arrays of class
            // references have one representation whatever their static element class.
            return unsafeBitCast(objects, to: [Object].self)
        }
        return objects.compactMap { $0 as? Object }
    }

    /// The IDs of the objects a request describes.
    ///
    /// - Throws: What ``fetch(_:)`` throws.
    ///
    /// Corresponds to a fetch with `resultType` `.managedObjectIDResultType`.
    public func fetchObjectIDs<Object>(_ request: FetchRequest<Object>) throws -> [ManagedObjectID] {
        if let rows = try storeRows(request, attributes: []) { return rows.objectIDs }
        return try fetchObjects(request).map(\.objectID)
    }

    /// The values of `properties` (when nil, the request's ``FetchRequest/propertiesToFetch``,
    /// else all attributes) of the objects a request describes,
    /// one dictionary per object; nil values are left out, as Core Data does. With
    /// ``FetchRequest/includesPendingChanges`` false, attributes read as last saved.
    ///
    /// - Throws: What ``fetch(_:)`` throws, and `KeyValueCodingError/Code/undefinedKey` for a
    ///   property the entity does not have.
    ///
    /// Corresponds to a fetch with `resultType` `.dictionaryResultType` and `propertiesToFetch`.
    public func fetchDictionaries<Object>(_ request: FetchRequest<Object>, properties: [String]? = nil) throws -> [[String: Any]] {
        let properties = properties ?? request.propertiesToFetch
        if let entity = persistentStoreCoordinator.managedObjectModel.entity(named: request.entityName),
           let attributes = Self.storeReadableAttributes(properties, of: entity, includesSubentities: request.includesSubentities),
           let rows = try storeRows(request, attributes: attributes) {
            var dictionaries: [[String: Any]] = []
            dictionaries.reserveCapacity(rows.objectIDs.count)
            var offset = 0
            for id in rows.objectIDs {
                var dictionary = [String: Any](minimumCapacity: attributes.count)
                for attribute in attributes {
                    if let value = try objectValue(rows.values[offset], for: attribute, of: id) { dictionary[attribute.name] = value }
                    offset += 1
                }
                dictionaries.append(dictionary)
            }
            return dictionaries
        }
        let objects = try fetchObjects(request)
        return try objects.map { object in
            let keys = properties ?? object.entity.attributes.map(\.name)
            // Without pending changes, a changed object's attributes read as saved, as the store has them.
            let saved = !request.includesPendingChanges && object.hasChanges && object.snapshot != nil
                ? object.committedValues(forKeys: object.entity.attributes.map(\.name)) : nil
            var dictionary: [String: Any] = [:]
            for key in keys {
                if let saved, object.entity.attributesByName[key] != nil {
                    if let value = saved[key], !(value is NSNull) { dictionary[key] = value }
                } else if let value = try object.value(forKeyPath: key) {
                    dictionary[key] = value
                }
            }
            return dictionary
        }
    }

    /// The number of objects a request describes.
    ///
    /// - Throws: What ``fetch(_:)`` throws.
    ///
    /// Corresponds to `-[NSManagedObjectContext countForFetchRequest:error:]`.
    public func count<Object>(for request: FetchRequest<Object>) throws -> Int {
        if let storeRequest = try wholeStoreRequest(request), let store = persistentStoreCoordinator.persistentStores.first,
           let count = try store.count(for: storeRequest) {
            return count
        }
        return try fetchObjects(request).count
    }

    /// The request as the store gets it, when the store's answer alone is the answer: one store,
    /// and no unsaved change of this context (or of its parent chain) that the request must
    /// see. Nil otherwise.
    private func wholeStoreRequest<Object>(_ request: FetchRequest<Object>) throws -> StoreFetchRequest? {
        guard persistentStoreCoordinator.persistentStores.count == 1, !(request.includesPendingChanges && hasChanges),
              storeAnswersForChain
        else {
            return nil
        }
        let model = persistentStoreCoordinator.managedObjectModel
        guard let entity = model.entity(named: request.entityName) else {
            throw ModelError(.unknownEntity, entity: request.entityName, message: "the model has no entity named '\(request.entityName)'")
        }
        return StoreFetchRequest(
            entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate.map(storePredicate),
            sortDescriptors: request.sortDescriptors, fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset)
    }

    /// A predicate as stores get it: saved objects registered with this context become
    /// ``StoreObjectReference``s, which a store can compare with its records' keys; every other
    /// constant stays as it is.
    func storePredicate(_ predicate: KeyValuePredicate) -> KeyValuePredicate {
        switch predicate {
        case .truePredicate, .falsePredicate: return predicate
        case .and(let parts): return .and(parts.map(storePredicate))
        case .or(let parts): return .or(parts.map(storePredicate))
        case .not(let inner): return .not(storePredicate(inner))
        case .comparison(let comparison):
            func referenced(_ expression: KeyValueExpression) -> KeyValueExpression? {
                guard case .constant(let value?) = expression else { return nil }
                if let object = reference(value) { return .constant(object) }
                guard let elements = (value as? [Any]) ?? (value as? Set<AnyHashable>).map({ $0.map(\.base) }),
                      elements.contains(where: { reference($0) != nil })
                else { return nil }
                return .constant(elements.map { reference($0) ?? $0 })
            }
            let left = referenced(comparison.leftExpression), right = referenced(comparison.rightExpression)
            guard left != nil || right != nil else { return predicate }
            return .comparison(KeyValuePredicate.Comparison(
                left ?? comparison.leftExpression, comparison.operatorType, right ?? comparison.rightExpression,
                modifier: comparison.modifier, options: comparison.options))
        }
    }

    /// A reference to `value` when it is a saved object registered with this context.
    private func reference(_ value: Any) -> StoreObjectReference? {
        guard let object = asModelObject(value) as? ManagedObject, object.managedObjectContext === self,
              !object.objectID.isTemporaryID
        else { return nil }
        return StoreObjectReference(objectID: object.objectID)
    }

    /// The IDs and `attributes` of the records a request describes, read by the store alone
    /// (see ``wholeStoreRequest(_:)``), or nil.
    private func storeRows<Object>(_ request: FetchRequest<Object>, attributes: [AttributeDescription]) throws -> StoreAttributeRows? {
        guard let storeRequest = try wholeStoreRequest(request), let store = persistentStoreCoordinator.persistentStores.first else {
            return nil
        }
        return try store.fetchAttributes(attributes, for: storeRequest)
    }

    /// The attributes a dictionary fetch reads, when a store can read them as columns: plain,
    /// persistent attribute names (not key paths or relationships); every attribute of the
    /// entity when `properties` is nil, none is transient and no subentity that the request
    /// includes adds its own. Nil otherwise.
    private static func storeReadableAttributes(
        _ properties: [String]?, of entity: EntityDescription, includesSubentities: Bool
    ) -> [AttributeDescription]? {
        guard let properties else {
            let subentitiesAddAttributes = includesSubentities && !entity.subentities.isEmpty
            return subentitiesAddAttributes || entity.attributes.contains(where: \.isTransient) ? nil : entity.attributes
        }
        var attributes: [AttributeDescription] = []
        for name in properties {
            guard let attribute = entity.attributesByName[name], !attribute.isTransient else { return nil }
            attributes.append(attribute)
        }
        return attributes
    }

    private func fetchObjects<Object>(_ request: FetchRequest<Object>) throws -> [ManagedObject] {
        let model = persistentStoreCoordinator.managedObjectModel
        guard let entity = model.entity(named: request.entityName) else {
            throw ModelError(.unknownEntity, entity: request.entityName, message: "the model has no entity named '\(request.entityName)'")
        }
        func matchesEntity(_ object: ManagedObject) -> Bool {
            request.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity.name == entity.name
        }
        let partial = try partialProperties(of: request, entity: entity)
        var storeRequest = StoreFetchRequest(
            entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate.map(storePredicate),
            sortDescriptors: request.sortDescriptors)
        let pending = request.includesPendingChanges && hasChanges
        // A store reads related records as saved: with unsaved changes to see, a predicate that
        // reads through relationships is matched in memory only.
        let predicateInMemory = pending && (request.predicate.map(Self.readsThroughRelationships) ?? false)
        if predicateInMemory { storeRequest.predicate = nil }
        // Offset and limit apply to the merged results: a store may apply them only when it
        // holds every record and no unsaved change joins its results.
        if !pending && persistentStoreCoordinator.persistentStores.count == 1 {
            storeRequest.fetchLimit = request.fetchLimit
            storeRequest.fetchOffset = request.fetchOffset
        }
        var objects: [ManagedObject] = []
        if request.fetchBatchSize > 0 || !request.includesPropertyValues, let rows = try storeRows(request, attributes: []) {
            // Batched or without values, and the store applies the whole request: read only the
            // keys; each batch (or each fault) reads its rows when one of its faults fires.
            objects = self.objects(with: rows.objectIDs)
            return try finishFetch(objects, request)
        }
        var appliedPredicate = !predicateInMemory, appliedOrder = true
        let read = persistentStoreCoordinator.savedRecords.read()
        var seen = Set<ObjectIdentifier>()
        // One store gives each record once; objects seen twice are possible only across stores.
        let mayRepeat = persistentStoreCoordinator.persistentStores.count > 1
        if chain.parentStore == nil, persistentStoreCoordinator.persistentStores.count == 1,
           let store = TypedRowStore(persistentStoreCoordinator.persistentStores.first) {
            // One store that decodes its rows into the objects' storage: the rows' new objects
            // are registered together once they are read (even when reading fails part way).
            // Objects are fired once the store is done (firing runs `awakeFromFetch`, which may
            // read the store).
            // A partial fetch: the store reads those properties only, and the rows say so.
            storeRequest.propertiesToFetch = partial?.names
            var sink = FetchRowSink(
                context: self, entity: entity, read: partial.map { read.holding($0) } ?? read,
                loaded: !request.returnsObjectsAsFaults && partial == nil)
            let applied: (appliedPredicate: Bool, appliedSortAndLimit: Bool)
            do {
                // The objects of the rows are made through one request of the thread's.
                applied = try FaultConstruction.withRequest { construction in
                    sink.construction = construction
                    defer { sink.construction = nil }
                    return try store.readFetchRows(storeRequest, into: &sink)
                }
                sink.registerNewObjects()
            } catch {
                sink.registerNewObjects()
                throw error
            }
            appliedPredicate = appliedPredicate && applied.appliedPredicate
            appliedOrder = appliedOrder && applied.appliedSortAndLimit
            objects = sink.objects
            for object in sink.toFire { try? object.fireFault() }
        } else {
            for result in try sourceFetchResults(storeRequest) {
                appliedPredicate = appliedPredicate && result.appliedPredicate
                appliedOrder = appliedOrder && result.appliedSortAndLimit
                registered.reserveCapacity(registered.count + result.records.count)
                objects.reserveCapacity(objects.count + result.records.count)
                for record in result.records {
                    let object = registeredObject(for: record, read: read, loaded: !request.returnsObjectsAsFaults)
                    if !mayRepeat || seen.insert(ObjectIdentifier(object)).inserted { objects.append(object) }
                }
            }
        }
        if pending && !mayRepeat { seen = Set(objects.lazy.map(ObjectIdentifier.init)) }
        if persistentStoreCoordinator.persistentStores.count > 1 { appliedOrder = false }
        if pending {
            objects.removeAll { $0.isDeleted }
            for object in inserted where matchesEntity(object) && seen.insert(ObjectIdentifier(object)).inserted {
                objects.append(object)
            }
            for object in updated where matchesEntity(object) && seen.insert(ObjectIdentifier(object)).inserted {
                objects.append(object)
            }
        }
        if let predicate = request.predicate {
            // Objects the store already matched and that have no unsaved changes need no second look.
            objects = try objects.filter { object in
                if appliedPredicate && !(pending && object.hasChanges) { return true }
                if !request.includesPendingChanges && object.hasChanges && object.snapshot != nil {
                    // Matched as the store has it: on the values last saved.
                    return try predicate.evaluate(with: object.committedValues(forKeys: nil).mapValues { isNull($0) ? nil : $0 } as [String: Any?])
                }
                // A fault is matched on its fetched row without firing; SELF is still the
                // object, and keys the row does not hold are asked of the object itself.
                if object.isFault, object.fetchedRow.hasBuffer {
                    return try predicate.evaluate(standIn: FetchedRowStandIn(object: object, values: object.fetchedRow))
                }
                return try predicate.evaluate(with: object)
            }
        }
        if !appliedOrder || pending {
            if !request.sortDescriptors.isEmpty {
                // Faults are sorted on their fetched rows, without firing them.
                let views = try objects.map(sortingView).sorted(using: request.sortDescriptors)
                objects = views.compactMap { view in
                    (view as? [String: Any?])?[Self.viewObjectKey].flatMap { $0 as? ManagedObject } ?? (view as? ManagedObject)
                }
            }
            if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
            if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
        }
        return try finishFetch(objects, request)
    }

    /// The objects of `ids`, as ``object(with:)`` gives each: the registered ones, and new
    /// faults made through one request of the thread's (see `FaultConstruction`).
    private func objects(with ids: [ManagedObjectID]) -> [ManagedObject] {
        // The registry grows once, to the room the new faults may need, not by doubling.
        registered.reserveCapacity(registered.count + ids.count)
        return FaultConstruction.withRequest { request in
            var last: (entity: ObjectIdentifier, bindings: UnsafeBufferPointer<ManagedFieldTable.Binding>)?
            return ids.map { id in
                if let object = registered[id] { return object }
                if id.isTemporaryID { return object(with: id) }
                let entity = id.entity
                let bindings: UnsafeBufferPointer<ManagedFieldTable.Binding>
                if let last, last.entity == ObjectIdentifier(entity) {
                    bindings = last.bindings
                } else {
                    bindings = ManagedFieldTable.bindingBuffer(for: entity.managedObjectClass, entity: entity)
                    last = (ObjectIdentifier(entity), bindings)
                }
                let object = makeUnregisteredFault(for: id, bindings: bindings, through: request)
                registered.insertNew(object, id: id)
                return object
            }
        }
    }

    /// The properties a fetch of `request` reads alone (see ``FetchRequest/propertiesToFetch``),
    /// for a fetch that makes partial faults: nil for a fetch of whole rows (no names, a batched
    /// fetch, one that prefetches, or one without values).
    ///
    /// - Throws: `KeyValueCodingError/Code/undefinedKey` for a name that is not an attribute or
    ///   a to-one relationship of `entity`.
    private func partialProperties<Object>(of request: FetchRequest<Object>, entity: EntityDescription) throws -> PartialRowProperties? {
        guard let names = request.propertiesToFetch else { return nil }
        for name in names {
            guard let property = entity.propertiesByName[name], !property.isTransient,
                  !((property as? RelationshipDescription)?.isToMany ?? false)
            else {
                throw KeyValueCodingError(
                    .undefinedKey, key: name, className: String(reflecting: Object.self),
                    message: "propertiesToFetch names '\(name)', which is not an attribute or a to-one relationship of \(entity.name)")
            }
        }
        guard request.fetchBatchSize == 0, request.relationshipKeyPathsForPrefetching.isEmpty, request.includesPropertyValues else {
            return nil
        }
        return PartialRowProperties(names: Set(names), of: entity)
    }

    /// Groups a fetch's faults into batches (or fires them, for a request that does not want
    /// faults), then prefetches the request's relationship key paths.
    private func finishFetch<Object>(_ objects: [ManagedObject], _ request: FetchRequest<Object>) throws -> [ManagedObject] {
        if request.fetchBatchSize > 0 {
            // Faults load their values a batch at a time: the first read in a batch reads the
            // whole batch in one go.
            let faults = objects.filter(\.isFault)
            var start = 0
            while start < faults.count {
                let members = Array(faults[start..<min(start + request.fetchBatchSize, faults.count)])
                let batch = FaultBatch(objectIDs: members.map(\.objectID))
                for object in members {
                    object.fetchedRow = PropertyValues()
                    object.faultBatch = batch
                }
                start += request.fetchBatchSize
            }
        } else if !request.returnsObjectsAsFaults {
            // Partial faults stay faults: firing one reads its whole record.
            for object in objects where object.isFault && object.fetchedRow.hasBuffer && !object.holdsPartialRow {
                try? object.fireFault()
            }
        }
        for path in request.relationshipKeyPathsForPrefetching { try prefetch(path, of: objects) }
        return objects
    }

    /// Whether a predicate reads a key path of more than one key, or compares objects.
    static func readsThroughRelationships(_ predicate: KeyValuePredicate) -> Bool {
        switch predicate {
        case .truePredicate, .falsePredicate: return false
        case .and(let parts), .or(let parts): return parts.contains(where: readsThroughRelationships)
        case .not(let inner): return readsThroughRelationships(inner)
        case .comparison(let comparison):
            return readsThroughRelationships(comparison.leftExpression) || readsThroughRelationships(comparison.rightExpression)
        }
    }

    private static func readsThroughRelationships(_ expression: KeyValueExpression) -> Bool {
        switch expression {
        case .keyPath(let path): return path.contains(".")
        case .constant, .variable: return false
        case .evaluatedObject, .keyPathOn, .aggregate, .subquery: return true
        }
    }

    private static let viewObjectKey = "\u{0}object"

    /// What sort descriptors read while fetching: the object itself, or, for a fault that
    /// holds its fetched row, the row's values by key (so that sorting in memory fires no
    /// fault), with the object under a key no property can have.
    private func sortingView(of object: ManagedObject) throws -> Any {
        // A partial row lacks keys a sort may read: the object is asked (firing it if need be).
        guard object.isFault, object.fetchedRow.hasBuffer, !object.holdsPartialRow else { return object }
        let values = object.fetchedRow
        var view: [String: Any?] = [Self.viewObjectKey: object]
        for property in object.entity.properties where property.index < values.count {
            view[property.name] = values[property.index]
        }
        return view
    }

    /// The registered object for a fetched record, or a new one: a fault that keeps the
    /// record's values to fire from, or (with `loaded`) an object with its values and
    /// `awakeFromFetch` done.
    private func registeredObject(for record: StoreRecord, read: RowRead, loaded: Bool) -> ManagedObject {
        if let object = registered[record.objectID] {
            // A fault takes the fresher row; a loaded object keeps its values (and any changes).
            if object.isFault { setFetchedRow(record, read: read, of: object) }
            return object
        }
        let object = makeFault(for: record.objectID)
        setFetchedRow(record, read: read, of: object)
        if loaded { try? object.fireFault() }
        return object
    }

    /// Loads the objects at the end of a relationship key path of `objects`, one pass per key:
    /// a to-many relationship's records and each owner's related IDs are read together where
    /// the store can (one statement for up to 500 owners), else by ID; to-one targets are read
    /// by ID (one statement per table for up to 500).
    private func prefetch(_ keyPath: String, of objects: [ManagedObject]) throws {
        var level = objects
        for key in keyPath.split(separator: ".").map(String.init) {
            try loadRecords(of: level.filter { $0.isFault && !$0.fetchedRow.hasBuffer && $0.faultBatch == nil })
            var toManyOf: (relationship: RelationshipDescription, owners: [ManagedObject])?
            var sameToMany = true
            for object in level {
                try object.fireFault()
                guard let relationship = object.entity.relationshipsByName[key] else {
                    throw KeyValueCodingError(
                        .undefinedKey, key: key, className: String(reflecting: type(of: object)),
                        message: "\(object.entity.name) has no relationship '\(key)' to prefetch")
                }
                if relationship.isToMany && !object.objectID.isTemporaryID {
                    if toManyOf == nil { toManyOf = (relationship, []) }
                    if toManyOf?.relationship === relationship { toManyOf?.owners.append(object) } else { sameToMany = false }
                }
            }
            var prefetched: [StoreRecord] = []
            let read = persistentStoreCoordinator.savedRecords.read()
            if sameToMany, chain.parentStore == nil, persistentStoreCoordinator.persistentStores.count == 1, let toManyOf,
               toManyOf.owners.contains(where: { Self.needsPrefetch($0, at: toManyOf.relationship.index) }),
               let related = try persistentStoreCoordinator.persistentStores[0].records(
                   relatedTo: toManyOf.owners.map(\.objectID), through: toManyOf.relationship) {
                let index = toManyOf.relationship.index
                for owner in toManyOf.owners {
                    if let fault = owner.values[index] as? RelationshipFault, fault.ids == nil {
                        owner.adoptRelationshipFaultIDs(related.relatedIDs[owner.objectID] ?? [], of: fault, at: index)
                    }
                }
                prefetched = related.records
            } else {
                try readUnreadRelationships(key, of: level)
            }
            var next: [ManagedObject] = []
            var faults: [ManagedObject] = []
            for object in level {
                guard let relationship = object.entity.relationshipsByName[key] else { continue }
                let related = relationship.isToMany
                    ? object.toManyObjects(at: relationship.index)
                    : (object.values[relationship.index] as? ManagedObject).map { [$0] } ?? []
                for target in related {
                    next.append(target)
                    if target.isFault && !target.fetchedRow.hasBuffer { faults.append(target) }
                }
            }
            // The related objects are registered now: their faults take the rows read.
            for record in prefetched {
                if let target = registered[record.objectID], target.isFault, !target.fetchedRow.hasBuffer {
                    setFetchedRow(record, read: read, of: target)
                }
            }
            try loadRecords(of: faults.filter { !$0.fetchedRow.hasBuffer })
            for target in faults { try? target.fireFault() }
            level = next
        }
    }

    /// Whether prefetching the to-many relationship at `index` of `owner` has anything to read:
    /// its IDs, or related objects that are faults with no row.
    private static func needsPrefetch(_ owner: ManagedObject, at index: Int) -> Bool {
        guard index < owner.values.count else { return false }
        let value = owner.values[index]
        if value is RelationshipFault { return true }
        let objects = (value as? Set<ManagedObject>).map(Array.init) ?? (value as? [ManagedObject]) ?? []
        return objects.contains { $0.isFault && !$0.fetchedRow.hasBuffer }
    }

    /// Reads the IDs of the unread to-many relationships named `key` of `objects` (objects
    /// whose faults fired alone) together, from their records, instead of one query each.
    private func readUnreadRelationships(_ key: String, of objects: [ManagedObject]) throws {
        var unread: [(object: ManagedObject, fault: RelationshipFault, index: Int)] = []
        for object in objects where !object.isFault {
            guard let relationship = object.entity.relationshipsByName[key], relationship.isToMany,
                  relationship.index < object.values.count,
                  let fault = object.values[relationship.index] as? RelationshipFault, fault.ids == nil
            else { continue }
            unread.append((object, fault, relationship.index))
        }
        // A child reads through its parent (see `loadRecords`), one record at a time.
        guard unread.count > 1, chain.parentStore == nil, persistentStoreCoordinator.persistentStores.count == 1 else { return }
        let records = try persistentStoreCoordinator.persistentStores[0].records(for: unread.map(\.object.objectID))
        for (object, fault, index) in unread {
            guard let record = records[object.objectID], index < record.values.count, !record.omittedRelationships.contains(index),
                  case .toMany(let ids) = record.values[index]
            else { continue }
            object.adoptRelationshipFaultIDs(ids, of: fault, at: index)
        }
    }

    /// Gives the registered faults of a batch their records, in one read. When the read fails
    /// (a record of the batch that the store refuses to read, a read error), each fault reads
    /// its own record when it fires, so that only the faults whose records fail report it.
    func loadBatch(_ batch: FaultBatch) {
        // One pass: each registered fault of the batch still without a row leaves the batch.
        var faults: [ManagedObject] = []
        faults.reserveCapacity(batch.objectIDs.count)
        for id in batch.objectIDs {
            guard let object = registered[id], object.isFault, !object.fetchedRow.hasBuffer else { continue }
            object.faultBatch = nil
            faults.append(object)
        }
        do {
            try loadRecords(of: faults)
        } catch {
            for fault in faults { fault.fetchedRow = PropertyValues() }
        }
    }

    /// Gives faults their records in one read per store.
    private func loadRecords(of faults: [ManagedObject]) throws {
        guard let first = faults.first else { return }
        if let parentStore = chain.parentStore {
            let read = persistentStoreCoordinator.savedRecords.read()
            for object in faults {
                // No record: the fault has no row, and firing finds the record gone.
                if let record = try parentStore.record(for: object.objectID) { setFetchedRow(record, read: read, of: object) }
            }
            return
        }
        // Grouped by the store's interned identity (0 for temporary IDs), only when the faults
        // are of several stores (a fetch across a coordinator's stores): no dictionary otherwise.
        let firstStore = first.objectID.key.store
        if faults.allSatisfy({ $0.objectID.key.store == firstStore }) { return try loadRecords(of: faults, fromStoreOf: first.objectID) }
        var byStore: [UInt: [ManagedObject]] = [:]
        for fault in faults { byStore[fault.objectID.key.store, default: []].append(fault) }
        for (_, objects) in byStore { try loadRecords(of: objects, fromStoreOf: objects[0].objectID) }
    }

    /// Gives `faults`, all of the store of `id`, their records in one read.
    private func loadRecords(of faults: [ManagedObject], fromStoreOf id: ManagedObjectID) throws {
        guard let store = persistentStoreCoordinator.store(for: id) else { return }
        let read = persistentStoreCoordinator.savedRecords.read()
        if let store = TypedRowStore(store) {
            // Decoded by the store straight into each fault's row.
            var sink = FaultBatchRowSink(context: self, faults: faults, read: read)
            try store.readFaultRows(for: faults.map(\.objectID), into: &sink)
            return
        }
        let records = try store.faultRecords(for: faults.map(\.objectID))
        for object in faults {
            if let record = records[object.objectID] { setFetchedRow(record, read: read, of: object) }
        }
    }
}

/// The objects of one batch of a fetch with a batch size, which load their values together.
final class FaultBatch {
    let objectIDs: [ManagedObjectID]

    init(objectIDs: [ManagedObjectID]) {
        self.objectIDs = objectIDs
    }
}

/// A fault as predicates matched in memory see it: the values of its fetched row for the
/// entity's attributes and to-one relationships (and key paths through them), the object
/// itself for `SELF` and for every other key (to-many relationships among them), which then fires the fault and throws as key-value coding
/// does (an unknown key, a gone record).
struct FetchedRowStandIn: KeyValuePredicateStandIn {
    let object: ManagedObject
    /// The row's values as the object would store them, by property index.
    let values: PropertyValues

    var standInObject: Any { object }

    func value(forKeyPath keyPath: String) throws -> Any? {
        let dot = keyPath.firstIndex(of: ".")
        let key = dot.map { String(keyPath[..<$0]) } ?? keyPath
        guard let property = object.entity.propertiesByName[key], !property.isTransient, property.index < values.count,
              !object.entity.isToManyByIndex[property.index],
              values.storage?.rowRead?.partial?.holds(property.index, of: object.entity) ?? true
        else {
            return try object.value(forKeyPath: keyPath)
        }
        let value = values[property.index]
        guard let dot else { return value }
        guard let relationship = property as? RelationshipDescription, !relationship.isToMany else {
            return try object.value(forKeyPath: keyPath)
        }
        guard let related = value.flatMap({ asModelObject($0) }) else { return nil }
        return try related.value(forKeyPath: String(keyPath[keyPath.index(after: dot)...]))
    }
}
