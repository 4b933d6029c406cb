import Foundation

/// One section of a ``FetchedResultsController``'s results: the objects that share a section
/// name, in the results' order.
///
/// A snapshot: it keeps the objects the section had when it was made, whatever changes later.
///
/// Corresponds to Core Data's `NSFetchedResultsSectionInfo` protocol; differences: a struct.
public struct FetchedResultsSectionInfo<Object: ManagedObject> {
    /// The section's name: the value at the controller's ``FetchedResultsController/sectionNameKeyPath``
    /// shared by its objects, as a string (`""` for nil, and for the one section of a controller
    /// without a key path).
    ///
    /// Corresponds to `NSFetchedResultsSectionInfo.name`.
    public let name: String
    /// The section's title in a section index: by default the name's first letter, uppercased
    /// (nil for an empty name); the delegate's
    /// `controller(_:sectionIndexTitleForSectionName:)` may
    /// choose another.
    ///
    /// Corresponds to `NSFetchedResultsSectionInfo.indexTitle`.
    public let indexTitle: String?
    let slice: ArraySlice<Object>

    init(name: String, indexTitle: String?, objects: ArraySlice<Object>) {
        self.name = name
        self.indexTitle = indexTitle
        slice = objects
    }

    /// The section's objects, in order.
    ///
    /// - Complexity: O(*n*) in the section's size (a copy).
    ///
    /// Corresponds to `NSFetchedResultsSectionInfo.objects`.
    public var objects: [Object] { Array(slice) }

    /// How many objects the section holds.
    ///
    /// Corresponds to `NSFetchedResultsSectionInfo.numberOfObjects`.
    public var numberOfObjects: Int { slice.count }
}

@available(*, unavailable, message: "a section holds managed objects, which belong to their context's isolation domain")
extension FetchedResultsSectionInfo: Sendable {}
