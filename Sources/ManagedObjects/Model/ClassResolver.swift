import Foundation

/// Finds the `ManagedObject` subclass an entity names.
///
/// Names come as Xcode writes them: `"MyApp.Employee"` (module-qualified), `".Employee"` (the
/// app's own module, Xcode's "Current Product Module") or `"Employee"` (no module). Classes
/// passed explicitly match by their qualified or unqualified name; others are found with the
/// runtime's `_typeByName`, which needs a module-qualified name, so unqualified names are tried in
/// `moduleName` when one is given. Last, a qualified name matches an explicit class of the same
/// unqualified name, so a model written for an app's module finds classes compiled elsewhere.
struct ClassResolver: Sendable {
    var moduleName: String?
    var classes: [ManagedObject.Type] = []

    /// The class named `name`, or nil when it cannot be found or is not a `ManagedObject` subclass.
    func resolve(_ name: String) -> ManagedObject.Type? {
        let name = name.hasPrefix(".") ? String(name.dropFirst()) : name
        if name.isEmpty { return nil }
        if ["NSManagedObject", "ManagedObject", String(reflecting: ManagedObject.self)].contains(name) {
            return ManagedObject.self
        }
        let qualified = name.contains(".")
        for cls in classes {
            if String(reflecting: cls) == name || (!qualified && String(describing: cls) == name) {
                return cls
            }
        }
        if qualified, let type = _typeByName(name) as? ManagedObject.Type {
            return type
        }
        if !qualified, let moduleName, let type = _typeByName("\(moduleName).\(name)") as? ManagedObject.Type {
            return type
        }
        // A class passed explicitly wins over the module a model file was written for.
        if qualified, let unqualified = name.split(separator: ".").last {
            return classes.first { String(describing: $0) == unqualified }
        }
        return nil
    }
}
