/// What one word of every model object holds: its class's keys while nothing observes it, its
/// observation state (which holds the keys) while something does.
///
/// Two class references in one word (the enum uses the references' spare bits), so an object
/// pays one word where it would pay two; reading the keys of an observed object costs one load
/// more.
@usableFromInline
package enum KeysAndObservers {
    /// Nothing observes the object: the keys of its class.
    case keys(PropertyTable)
    /// The object's observers and pending changes, and the keys of its class.
    case observed(ObservationState)
}
