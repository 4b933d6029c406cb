/// A store that hands out the primary keys of a save's inserted records without a write of
/// their own, and claims them in the transaction that writes the save: a save then costs one
/// commit, where reserving keys first (``PersistentStore/newPrimaryKeys(for:count:)``) costs one
/// more per entity.
///
/// The keys are provisional until the next ``PersistentStore/apply(_:)`` claims them. When
/// another writer (another coordinator or process on the same file) reserved keys in between,
/// that apply writes nothing and throws ``SaveKeysTaken``; the context then reserves keys the
/// old way and applies again.
protocol SaveKeyProviding: PersistentStore {
    /// Keys for `count` new records of `entity`, claimed by the next ``PersistentStore/apply(_:)``.
    ///
    /// - Throws: ``PersistenceError`` when the store cannot be read.
    func saveKeys(for entity: EntityDescription, count: Int) throws -> [Int64]

    /// Forgets the keys handed out for a save that will not be applied, so that the next
    /// ``PersistentStore/apply(_:)`` (of a batch insert, say) claims none.
    func discardSaveKeys()
}

/// Thrown by ``PersistentStore/apply(_:)`` of a ``SaveKeyProviding`` store when keys it handed
/// out for the save were reserved by another writer first; nothing was written.
struct SaveKeysTaken: Error {}
