/// An object that receives key-value-observing notifications registered with
/// ``ModelObject/addObserver(_:forKeyPath:options:context:)``.
///
/// The observed object holds its observers weakly: an observer that goes away is never called
/// again, and its registrations are dropped.
///
/// Corresponds to Cocoa's informal `NSKeyValueObserving` observer method
/// `-observeValueForKeyPath:ofObject:change:context:`.
public protocol KeyValueObserver: AnyObject {
    /// Receives one change of `keyPath` on `object`.
    ///
    /// - Parameters:
    ///   - keyPath: The key path the observer registered for, relative to `object`.
    ///   - object: The object the observer registered with (not the intermediate object that
    ///     changed, for key paths through relationships).
    ///   - change: What changed.
    ///   - context: The context given at registration.
    func observeValue(
        forKeyPath keyPath: String, of object: ModelObject, change: KeyValueChange,
        context: UnsafeMutableRawPointer?)
}
