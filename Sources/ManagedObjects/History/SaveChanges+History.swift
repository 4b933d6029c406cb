extension SaveChanges {
    /// What a store that records persistent history writes about a save besides its records:
    /// who made it, and what each updated record changed.
    ///
    /// Corresponds to what Core Data's `NSSaveChangesRequest` carries from its context for
    /// history (`transactionAuthor`, `name`, each object's changed values).
    public struct HistoryDetails: Hashable, Sendable {
        /// The saving context's ``ManagedObjectContext/transactionAuthor``.
        public var author: String?
        /// The saving context's ``ManagedObjectContext/name``.
        public var contextName: String?
        /// For updated records, the names of the properties the save changed; a record missing
        /// here is recorded with every persistent property it writes.
        public var updatedProperties: [ManagedObjectID: Set<String>]

        /// Creates details.
        public init(author: String? = nil, contextName: String? = nil, updatedProperties: [ManagedObjectID: Set<String>] = [:]) {
            self.author = author
            self.contextName = contextName
            self.updatedProperties = updatedProperties
        }

        /// The updated properties of `record`: those given, or every persistent property the
        /// record writes.
        func updatedProperties(of record: StoreRecord) -> Set<String> {
            if let names = updatedProperties[record.objectID] { return names }
            return Set(record.objectID.entity.properties.lazy
                .filter { !$0.isTransient && !record.omittedRelationships.contains($0.index) }
                .map(\.name))
        }
    }
}
