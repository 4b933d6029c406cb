/// What happens to the objects at the other end of a relationship when its source object is deleted.
///
/// - ``nullify``: the objects stay; their inverse relationship stops pointing at the deleted object.
/// - ``cascade``: the objects are deleted too.
/// - ``deny``: the deletion fails validation while the relationship holds any object.
/// - ``noAction``: nothing is done; the objects keep pointing at the deleted object, and keeping
///   the graph consistent is up to you.
///
/// Corresponds to Core Data's `NSDeleteRule`; differences: a struct with static constants rather
/// than an enum (raw values are Core Data's: noAction 0, nullify 1, cascade 2, deny 3).
public struct DeleteRule: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric value, as Core Data's.
    ///
    /// Corresponds to `NSDeleteRule.rawValue`.
    public var rawValue: UInt
    /// Creates a rule from its numeric value.
    ///
    /// Corresponds to `NSDeleteRule(rawValue:)`; differences: never fails; unknown values are kept.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Leave the destination objects alone (`NSNoActionDeleteRule`, 0).
    ///
    /// Corresponds to Core Data's `NSDeleteRule.noActionDeleteRule`.
    public static let noAction = DeleteRule(rawValue: 0)
    /// Remove the deleted object from the destination objects' inverse (`NSNullifyDeleteRule`, 1).
    ///
    /// Corresponds to Core Data's `NSDeleteRule.nullifyDeleteRule`.
    public static let nullify = DeleteRule(rawValue: 1)
    /// Delete the destination objects too (`NSCascadeDeleteRule`, 2).
    ///
    /// Corresponds to Core Data's `NSDeleteRule.cascadeDeleteRule`.
    public static let cascade = DeleteRule(rawValue: 2)
    /// Refuse the deletion while there are destination objects (`NSDenyDeleteRule`, 3).
    ///
    /// Corresponds to Core Data's `NSDeleteRule.denyDeleteRule`.
    public static let deny = DeleteRule(rawValue: 3)

    /// The name Xcode's model editor writes in a model file (`"Nullify"`, `"No Action"`); nil for
    /// an unknown rule.
    ///
    /// Corresponds to the `deletionRule` attribute of Xcode's model XML.
    public var xcodeName: String? {
        switch self {
        case .noAction: "No Action"
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        default: nil
        }
    }

    /// Creates the rule Xcode's model editor writes under `name`, or nil for a name it does not know.
    ///
    /// Corresponds to how Core Data's model compiler reads `deletionRule` in Xcode's model XML.
    public init?(xcodeName name: String) {
        switch name {
        case "No Action": self = .noAction
        case "Nullify": self = .nullify
        case "Cascade": self = .cascade
        case "Deny": self = .deny
        default: return nil
        }
    }

    /// The constant's name (`"cascade"`), or the raw value for an unknown rule.
    ///
    /// Corresponds to nothing in Core Data, whose enum prints its raw value.
    public var description: String {
        switch self {
        case .noAction: "noAction"
        case .nullify: "nullify"
        case .cascade: "cascade"
        case .deny: "deny"
        default: "DeleteRule(\(rawValue))"
        }
    }
}
