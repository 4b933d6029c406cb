import Foundation

extension PersistenceError {
    /// Objects that would share the values of a uniqueness constraint, found by a save
    /// (``PersistenceError/Code/constraintConflict``).
    ///
    /// Corresponds to Core Data's `NSConstraintConflict`; differences: objects are named by
    /// their IDs (temporary IDs for unsaved ones), so the error can cross isolation domains,
    /// and snapshots hold values as the store keeps them.
    public struct ConstraintConflict: Sendable, CustomStringConvertible {
        /// The entity that declares the constraint.
        public var entityName: String
        /// The constrained property names.
        ///
        /// Corresponds to `NSConstraintConflict.constraint`.
        public var constraint: [String]
        /// The values the objects share, by property name.
        ///
        /// Corresponds to `NSConstraintConflict.constraintValues`.
        public var constraintValues: [String: StoreValue]
        /// The record already saved with these values; nil when the conflict is between
        /// objects of the save only.
        ///
        /// Corresponds to `NSConstraintConflict.databaseObject`'s ID.
        public var databaseObjectID: ManagedObjectID?
        /// The saved record's attributes and to-one relationships, by name.
        ///
        /// Corresponds to `NSConstraintConflict.databaseSnapshot`.
        public var databaseSnapshot: [String: StoreValue]?
        /// The objects of the save that have these values.
        ///
        /// Corresponds to `NSConstraintConflict.conflictingObjects`' IDs.
        public var conflictingObjectIDs: [ManagedObjectID]

        /// Creates a conflict.
        ///
        /// Corresponds to `NSConstraintConflict(constraint:database:databaseSnapshot:conflicting:conflictingSnapshots:)`.
        public init(
            entityName: String, constraint: [String], constraintValues: [String: StoreValue], databaseObjectID: ManagedObjectID?,
            databaseSnapshot: [String: StoreValue]?, conflictingObjectIDs: [ManagedObjectID]
        ) {
            self.entityName = entityName
            self.constraint = constraint
            self.constraintValues = constraintValues
            self.databaseObjectID = databaseObjectID
            self.databaseSnapshot = databaseSnapshot
            self.conflictingObjectIDs = conflictingObjectIDs
        }

        /// `Employee (email = "a@example.com"): <IDs>, saved as <ID>`.
        ///
        /// Corresponds to `-[NSConstraintConflict description]`; differences: one short line.
        public var description: String {
            let values = constraint.map { "\($0) = \(constraintValues[$0].map(\.description) ?? "nil")" }.joined(separator: ", ")
            return "\(entityName) (\(values)): " + conflictingObjectIDs.map(\.description).joined(separator: ", ")
                + (databaseObjectID.map { ", saved as \($0)" } ?? "")
        }
    }

    /// The error a save throws for `conflicts`.
    static func constraintConflicts(_ conflicts: [ConstraintConflict], by writer: String) -> PersistenceError {
        var error = PersistenceError(
            .constraintConflict,
            message: "\(conflicts.count) uniqueness constraint conflict\(conflicts.count == 1 ? "" : "s") \(writer): "
                + conflicts.map(\.description).joined(separator: "; "))
        error.constraintConflicts = conflicts
        return error
    }
}
