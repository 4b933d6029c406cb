/// Collects the entities listed in a ``ManagedObjectModel``'s closure.
///
/// Write one ``Entity`` a line; `if`, `if`/`else`, `for` and arrays of entities work too.
///
/// Corresponds to nothing in Core Data, which fills in a model's `entities` array; differences:
/// a Swift result builder.
@resultBuilder
public enum EntityBuilder {
    /// Takes one entity.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildExpression(_ entity: Entity) -> [Entity] { [entity] }
    /// Takes an array of entities.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildExpression(_ entities: [Entity]) -> [Entity] { entities }
    /// Joins the lines of a block.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildBlock(_ components: [Entity]...) -> [Entity] { components.flatMap { $0 } }
    /// Takes the entities of an `if` without `else`, or none.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildOptional(_ component: [Entity]?) -> [Entity] { component ?? [] }
    /// Takes the entities of the first branch of an `if`/`else`.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildEither(first component: [Entity]) -> [Entity] { component }
    /// Takes the entities of the second branch of an `if`/`else`.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildEither(second component: [Entity]) -> [Entity] { component }
    /// Joins the entities of the iterations of a `for` loop.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildArray(_ components: [[Entity]]) -> [Entity] { components.flatMap { $0 } }
    /// Takes the entities of an `if #available` block.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildLimitedAvailability(_ component: [Entity]) -> [Entity] { component }
}
