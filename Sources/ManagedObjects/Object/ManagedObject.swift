import Foundation
import ModelObjects

/// An object whose properties are described by an entity of a managed object model and whose
/// life is managed by a context: Core Data's `NSManagedObject`.
///
/// Subclass it for entities with custom behaviour, or use it directly: an entity with no custom
/// class is fully usable by key.
open class ManagedObject: ModelObject {
    /// Creates an object with no entity; used by key-value coding and archiving machinery.
    public required init() {
        super.init()
    }

    /// Creates an object from an archive.
    public required init(coder: Coder) throws {
        try super.init(coder: coder)
    }
}
