import Foundation

/// A change delivered to an observer: its kind, the old and new values, the indexes of an
/// ordered to-many change, and whether it is the notification sent before the change.
///
/// Values are the key-value-coding values of the observed key path; nil stays nil. For a
/// setting, `oldValue`/`newValue` are the whole values; for an insertion, removal or
/// replacement in a to-many relationship they are the objects inserted, removed or replaced
/// (an array for ordered relationships, a set for unordered ones).
///
/// Corresponds to Cocoa's change dictionary (`NSKeyValueChangeKindKey`,
/// `NSKeyValueChangeOldKey`, `NSKeyValueChangeNewKey`, `NSKeyValueChangeIndexesKey`,
/// `NSKeyValueChangeNotificationIsPriorKey`).
public struct KeyValueChange: CustomStringConvertible {
    /// What kind of change happened. Raw values are Cocoa's `NSKeyValueChange` values.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value, as Cocoa's `NSKeyValueChange`.
        public var rawValue: Int
        /// Creates a kind from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The value was replaced as a whole (`NSKeyValueChangeSetting`).
        public static let setting = Kind(rawValue: 1)
        /// Objects were inserted into a to-many relationship (`NSKeyValueChangeInsertion`).
        public static let insertion = Kind(rawValue: 2)
        /// Objects were removed from a to-many relationship (`NSKeyValueChangeRemoval`).
        public static let removal = Kind(rawValue: 3)
        /// Objects of a to-many relationship were replaced (`NSKeyValueChangeReplacement`).
        public static let replacement = Kind(rawValue: 4)

        public var description: String {
            switch self {
            case .setting: "setting"
            case .insertion: "insertion"
            case .removal: "removal"
            case .replacement: "replacement"
            default: "kind \(rawValue)"
            }
        }
    }

    /// The kind of change.
    public var kind: Kind
    // Spelled `Optional<…>` rather than `…?`: a `var` of the sugared type is set to nil before
    // an initializer runs, which turns the initializers' stores into assignments (a destroy and
    // a copy through `Any`'s value witnesses) instead of plain initializations.

    /// The value before the change, when ``KeyValueObservingOptions/old`` was asked for.
    public var oldValue: Optional<Any>
    /// The value after the change, when ``KeyValueObservingOptions/new`` was asked for; never
    /// set in a prior notification.
    public var newValue: Optional<Any>
    /// The indexes of the objects inserted, removed or replaced in an ordered to-many
    /// relationship; nil for settings and for unordered relationships.
    public var indexes: Optional<IndexSet>
    /// True for the notification sent before the change (``KeyValueObservingOptions/prior``).
    public var isPrior: Bool
    /// Whether ``oldValue`` was delivered (so that a nil there means a nil value, not an absent one).
    @usableFromInline var includesOldValue = false
    /// Whether ``newValue`` was delivered.
    @usableFromInline var includesNewValue = false

    /// Creates a change.
    public init(
        kind: Kind, oldValue: Any? = nil, newValue: Any? = nil, indexes: IndexSet? = nil,
        isPrior: Bool = false
    ) {
        self.kind = kind
        self.oldValue = oldValue
        self.newValue = newValue
        self.indexes = indexes
        self.isPrior = isPrior
    }

    /// A setting, built in one step from values the caller hands over: the direct notification
    /// path makes one per observer and per change.
    @inline(__always)
    init(settingOld oldValue: consuming Any?, includesOld: Bool, new newValue: consuming Any?, includesNew: Bool) {
        kind = .setting
        self.oldValue = oldValue
        self.newValue = newValue
        indexes = nil
        isPrior = false
        includesOldValue = includesOld
        includesNewValue = includesNew
    }

    public var description: String {
        var parts = ["kind: \(kind)"]
        if let oldValue { parts.append("old: \(describeKeyValue(oldValue))") }
        if let newValue { parts.append("new: \(describeKeyValue(newValue))") }
        if let indexes { parts.append("indexes: \(Array(indexes))") }
        if isPrior { parts.append("prior") }
        return "KeyValueChange(\(parts.joined(separator: ", ")))"
    }
}

/// What an observer asks to receive. Raw values are Cocoa's `NSKeyValueObservingOptions`.
public struct KeyValueObservingOptions: OptionSet, Hashable, Sendable {
    /// The numeric value, as Cocoa's.
    public var rawValue: UInt
    /// Creates options from their numeric value.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Include the new value in each change.
    public static let new = KeyValueObservingOptions(rawValue: 0x01)
    /// Include the old value in each change.
    public static let old = KeyValueObservingOptions(rawValue: 0x02)
    /// Send one notification at registration, before the registering call returns.
    public static let initial = KeyValueObservingOptions(rawValue: 0x04)
    /// Send an extra notification before each change, marked ``KeyValueChange/isPrior``.
    public static let prior = KeyValueObservingOptions(rawValue: 0x08)
}

/// How an unordered to-many relationship is mutated, for
/// ``ModelObject/willChangeValue(forKey:withSetMutation:using:)``. Raw values are Cocoa's
/// `NSKeyValueSetMutationKind`.
public struct KeyValueSetMutation: RawRepresentable, Hashable, Sendable {
    /// The numeric value, as Cocoa's.
    public var rawValue: Int
    /// Creates a mutation kind from its numeric value.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The objects are added (`NSKeyValueUnionSetMutation`); observers see an insertion of those
    /// not already present.
    public static let union = KeyValueSetMutation(rawValue: 1)
    /// The objects are removed (`NSKeyValueMinusSetMutation`); observers see a removal of those
    /// that were present.
    public static let minus = KeyValueSetMutation(rawValue: 2)
    /// Only the objects also in the given set are kept (`NSKeyValueIntersectSetMutation`);
    /// observers see a removal of the others.
    public static let intersect = KeyValueSetMutation(rawValue: 3)
    /// The set is replaced by the given objects (`NSKeyValueSetSetMutation`); observers see a
    /// replacement.
    public static let set = KeyValueSetMutation(rawValue: 4)
}
