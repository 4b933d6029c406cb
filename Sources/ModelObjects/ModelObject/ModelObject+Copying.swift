extension ModelObject {
    /// Copies the attributes (and shares the relationships) of this object into `copy`, an
    /// instance of the same class.
    func copyValues(into copy: ModelObject) {
        for descriptor in propertyTable.descriptors where !descriptor.isReadOnly {
            let value = descriptor.value(in: self)
            try? descriptor.setValue(value, in: copy)
        }
    }

    /// Returns a copy of this object and of every object it owns, recursively (see
    /// ``ModelObject/ownsRelatedObjects(forKey:)``).
    ///
    /// Inside the copied graph, references point at the copies: a department's copied employees
    /// point at the new department, and two copied employees that shared a manager in the graph
    /// share that manager's copy. References to objects outside the graph keep pointing at the
    /// originals. Each object is copied once, however often it is referenced.
    ///
    /// - Complexity: O(*n*) in the number of objects and references in the owned graph.
    public func deepCopy() -> Self {
        var copies: [ObjectIdentifier: ModelObject] = [:]
        var originals: [ModelObject] = []
        var pending: [ModelObject] = [self]
        while let object = pending.popLast() {
            guard copies[ObjectIdentifier(object)] == nil else { continue }
            copies[ObjectIdentifier(object)] = type(of: object).init()
            originals.append(object)
            for descriptor in object.propertyTable.descriptors where descriptor.isRelationship {
                guard type(of: object).ownsRelatedObjects(forKey: descriptor.key) else { continue }
                pending.append(contentsOf: relatedObjects(descriptor.value(in: object)))
            }
        }
        for original in originals {
            guard let copy = copies[ObjectIdentifier(original)] else { continue }
            for descriptor in original.propertyTable.descriptors where !descriptor.isReadOnly {
                var value = descriptor.value(in: original)
                if descriptor.isRelationship { value = remap(value, through: copies) }
                try? descriptor.setValue(value, in: copy)
            }
        }
        return copies[ObjectIdentifier(self)] as? Self ?? copy()
    }
}

private func remap(_ value: Any?, through copies: [ObjectIdentifier: ModelObject]) -> Any? {
    func map(_ object: ModelObject) -> ModelObject { copies[ObjectIdentifier(object)] ?? object }
    if let value, let object = asModelObject(value) { return map(object) }
    switch value {
    case let collection as any KeyValueCollection:
        var mapped: [Any] = []
        collection.forEachKeyValue { mapped.append(asModelObject($0).map(map) ?? $0) }
        if collection.isOrderedKeyValueCollection { return mapped }
        return Set(mapped.compactMap { $0 as? AnyHashable })
    default:
        return value
    }
}
