import ModelObjects

/// A named fetch request stored in a model: the entity, the predicate's format string and the
/// request's settings, as an Xcode model file gives them.
///
/// ```swift
/// if let template = model.fetchRequestTemplatesByName["fetchTheDucks"] {
///     let request = try template.fetchRequest()   // limit, batch size, … applied
/// }
/// ```
///
/// A setting the file does not give keeps `NSFetchRequest`'s default.
///
/// Corresponds to the `NSFetchRequest` Core Data's `fetchRequestTemplate(forName:)` returns;
/// differences: a value holding the predicate as its format string (parsed by
/// ``fetchRequest(as:)``), and ``returnsDistinctResults`` is kept for the record only: distinct
/// results are what ``ManagedObjectContext/fetchDictionaries(_:properties:)`` callers filter.
public struct FetchRequestTemplate: Hashable, Sendable {
    /// The name of the entity fetched (`entity`).
    public var entityName: String
    /// The predicate's format string (`predicateString`); nil for every object of the entity.
    public var predicateFormat: String?
    /// At most this many results, 0 for no limit (`fetchLimit`).
    public var fetchLimit: Int
    /// Results to skip first (`fetchOffset`).
    public var fetchOffset: Int
    /// How many objects' values are loaded together, 0 for all with the fetch (`fetchBatchSize`).
    public var fetchBatchSize: Int
    /// Whether objects of subentities are fetched too (`includeSubentities`).
    public var includesSubentities: Bool
    /// Whether fetched objects are faults (`returnObjectsAsFaults`).
    public var returnsObjectsAsFaults: Bool
    /// Whether unsaved changes count (`includesPendingChanges`).
    public var includesPendingChanges: Bool
    /// Whether property values are loaded with the objects (`includePropertyValues`).
    public var includesPropertyValues: Bool
    /// Whether dictionary results are distinct (`returnDistinctResults`). Kept as the file
    /// gives it; no request of this library reads it.
    public var returnsDistinctResults: Bool

    /// A template; every setting not given has `NSFetchRequest`'s default.
    public init(
        entityName: String, predicateFormat: String? = nil, fetchLimit: Int = 0, fetchOffset: Int = 0,
        fetchBatchSize: Int = 0, includesSubentities: Bool = true, returnsObjectsAsFaults: Bool = true,
        includesPendingChanges: Bool = true, includesPropertyValues: Bool = true, returnsDistinctResults: Bool = false
    ) {
        self.entityName = entityName
        self.predicateFormat = predicateFormat
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.includesSubentities = includesSubentities
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
        self.includesPendingChanges = includesPendingChanges
        self.includesPropertyValues = includesPropertyValues
        self.returnsDistinctResults = returnsDistinctResults
    }

    /// A fetch request with the template's entity, predicate and settings.
    ///
    /// - Throws: `KeyValuePredicateError` when the predicate format does not parse.
    ///
    /// Corresponds to Core Data's `fetchRequestTemplate(forName:)` (a copy of the stored request).
    public func fetchRequest<Object: ManagedObject>(as type: Object.Type = ManagedObject.self) throws -> FetchRequest<Object> {
        var request = FetchRequest<Object>(
            entityName: entityName, predicate: try predicateFormat.map { try KeyValuePredicate(format: $0) })
        request.fetchLimit = fetchLimit
        request.fetchOffset = fetchOffset
        request.fetchBatchSize = fetchBatchSize
        request.includesSubentities = includesSubentities
        request.returnsObjectsAsFaults = returnsObjectsAsFaults
        request.includesPendingChanges = includesPendingChanges
        request.includesPropertyValues = includesPropertyValues
        return request
    }
}
