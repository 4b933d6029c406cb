/// Collects the properties listed in an ``Entity``'s closure.
///
/// Write one ``Property`` a line; `if`, `if`/`else`, `for` and arrays of properties work too.
///
/// Corresponds to nothing in Core Data, which fills in an entity's `properties` array; differences:
/// a Swift result builder.
@resultBuilder
public enum PropertyBuilder {
    /// Takes one property.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildExpression(_ property: Property) -> [Property] { [property] }
    /// Takes an array of properties.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildExpression(_ properties: [Property]) -> [Property] { properties }
    /// Joins the lines of a block.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildBlock(_ components: [Property]...) -> [Property] { components.flatMap { $0 } }
    /// Takes the properties of an `if` without `else`, or none.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildOptional(_ component: [Property]?) -> [Property] { component ?? [] }
    /// Takes the properties of the first branch of an `if`/`else`.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildEither(first component: [Property]) -> [Property] { component }
    /// Takes the properties of the second branch of an `if`/`else`.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildEither(second component: [Property]) -> [Property] { component }
    /// Joins the properties of the iterations of a `for` loop.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildArray(_ components: [[Property]]) -> [Property] { components.flatMap { $0 } }
    /// Takes the properties of an `if #available` block.
    ///
    /// Corresponds to nothing in Core Data; result-builder plumbing.
    public static func buildLimitedAvailability(_ component: [Property]) -> [Property] { component }
}
