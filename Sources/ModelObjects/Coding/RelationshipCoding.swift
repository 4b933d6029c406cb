/// How ``ModelObject``'s `Codable` support writes the objects of a relationship.
///
/// Each object of an encoded graph is written once, in full, where it is first met along a
/// `.nested` relationship; everywhere else it is a reference, `{"@ref": 3}`, to the number its
/// full form carries under `"@id"`. A `.reference` relationship writes references to the
/// objects the graph writes in full elsewhere, and writes an object in full only when no
/// `.nested` path from the root reaches it. Either way decoding restores the same graph:
/// shared objects stay shared and cycles stay cycles.
///
/// Override ``ModelObject/relationshipCoding(forKey:)`` to choose; the default follows
/// ownership, as ``ModelObject/deepCopy()`` does: `.nested` for the relationships a class owns
/// (``ModelObject/ownsRelatedObjects(forKey:)``), `.reference` for the others.
///
/// Corresponds to nothing in Cocoa, where a keyed archive always holds objects once in a flat
/// table and refers to them by number.
public enum RelationshipCoding: Sendable, Hashable {
    /// The related objects are written inside the object, unless already written.
    case nested
    /// The related objects are written as references to where the graph writes them in full.
    case reference
}
