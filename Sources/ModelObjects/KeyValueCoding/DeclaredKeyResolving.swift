/// A model class whose declared properties a typed key path cannot be probed for by reading and
/// writing it on the object itself (``KeyValueCodingKeyPaths/key(for:)``'s way): it names the
/// key another way, or returns nil to let a read-only probe try (for `@Derived` keys).
///
/// `ManagedObject` conforms: a probe's write would be a change of a managed object in its
/// context, so its `@Managed` properties are found on a prototype instead.
package protocol DeclaredKeyResolving: ModelObject {
    /// The key of the declared property `keyPath` names, or nil when it names none this way.
    static func declaredKey<Root, Value>(for keyPath: KeyPath<Root, Value>) -> String?
}
