/// A class whose instances can be copied.
///
/// ``ModelObject`` adopts it with ``ModelObject/copy()``.
///
/// Corresponds to Cocoa's `NSCopying`.
public protocol Copying: AnyObject {
    /// Returns a copy of the object.
    func copy() -> Self
}

extension ModelObject: Copying {}
