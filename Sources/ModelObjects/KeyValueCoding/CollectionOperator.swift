import Foundation

/// The collection operators of key paths: `@count`, `@sum`, `@avg`, `@max`, `@min`,
/// `@unionOfObjects`, `@distinctUnionOfObjects`, `@unionOfArrays`, `@distinctUnionOfArrays`
/// and `@distinctUnionOfSets`.
///
/// Results follow Cocoa, with Swift types: `@count` is an `Int`; `@sum` is an `Int` when every
/// value is an integer, a `Decimal` when one is a `Decimal` (or an integer sum overflows), a
/// `Double` otherwise (Cocoa always answers an `NSDecimalNumber`); `@avg` is a `Double` (a
/// `Decimal` for decimal values); `@max`/`@min` return the value itself. Nil and `NSNull` values
/// are skipped, except that `@avg` divides by the whole count, as Cocoa does; `@sum` of an empty
/// collection is 0, `@avg`, `@max` and `@min` of an empty collection are nil. A value that is not a
/// number throws ``KeyValueCodingError/Code/nonNumericValue`` (Cocoa answers NaN or raises); a
/// `Decimal` result that would take an infinite double throws
/// ``KeyValueCodingError/Code/unrepresentableNumber``.
/// The distinct unions keep the first occurrence of each value in order and answer a set for a
/// set receiver; `@unionOfObjects` and `@unionOfArrays` answer an array for any receiver (Cocoa
/// raises for a set).
enum CollectionOperator {
    static func apply(
        _ name: Substring, to collection: any KeyValueCollection, rightPath: Substring?, fullPath: String
    ) throws -> Any? {
        switch name {
        case "count":
            return collection.keyValueCount
        case "sum":
            let path = try requiredPath(rightPath, name, fullPath)
            if let accumulator = try directAccumulation(of: collection, key: path, fullPath) { return try accumulator.sum(fullPath) }
            return try sum(of: values(of: collection, rightPath: path, fullPath: fullPath), fullPath)
        case "avg":
            let path = try requiredPath(rightPath, name, fullPath)
            let count = collection.keyValueCount
            guard count > 0 else { return nil }
            if let accumulator = try directAccumulation(of: collection, key: path, fullPath) {
                return try accumulator.average(count: count, fullPath)
            }
            return try average(of: values(of: collection, rightPath: path, fullPath: fullPath), count: count, fullPath)
        case "max":
            return try extreme(of: values(of: collection, rightPath: requiredPath(rightPath, name, fullPath), fullPath: fullPath), keeping: .orderedDescending, fullPath)
        case "min":
            return try extreme(of: values(of: collection, rightPath: requiredPath(rightPath, name, fullPath), fullPath: fullPath), keeping: .orderedAscending, fullPath)
        case "unionOfObjects":
            return try values(of: collection, rightPath: requiredPath(rightPath, name, fullPath), fullPath: fullPath)
        case "distinctUnionOfObjects":
            let values = try distinct(values(of: collection, rightPath: requiredPath(rightPath, name, fullPath), fullPath: fullPath), fullPath)
            if collection.isOrderedKeyValueCollection { return values }
            return Set(values.compactMap { $0 as? AnyHashable })
        case "unionOfArrays", "distinctUnionOfArrays", "distinctUnionOfSets":
            // The right key path of each element must lead to a collection; their elements are
            // joined (`departments.@unionOfArrays.employees`).
            let path = try requiredPath(rightPath, name, fullPath)
            var all: [Any] = []
            for inner in try values(of: collection, rightPath: path, fullPath: fullPath) {
                guard let innerCollection = inner as? any KeyValueCollection else {
                    throw KeyValueCodingError(
                        .operatorOnNonCollection, key: fullPath, className: String(reflecting: type(of: inner)),
                        message: "@\(name) needs '\(path)' to lead to collections; one leads to a \(type(of: inner))")
                }
                innerCollection.forEachKeyValue { element in
                    if !isNull(element) { all.append(element) }
                }
            }
            if name == "unionOfArrays" { return all }
            let unique = try distinct(all, fullPath)
            if collection.isOrderedKeyValueCollection { return unique }
            return Set(unique.compactMap { $0 as? AnyHashable })
        default:
            throw KeyValueCodingError(
                .unknownCollectionOperator, key: fullPath,
                message: "'@\(name)' is not a collection operator")
        }
    }

    private static func requiredPath(_ path: Substring?, _ name: Substring, _ fullPath: String) throws -> Substring {
        guard let path, !path.isEmpty else {
            throw KeyValueCodingError(
                .missingOperatorKeyPath, key: fullPath,
                message: "@\(name) needs a key path to its right, as in '@\(name).salary'")
        }
        return path
    }

    /// The non-nil values at `rightPath` of every element, in the collection's order.
    private static func values(
        of collection: any KeyValueCollection, rightPath: Substring, fullPath: String
    ) throws -> [Any] {
        var values: [Any] = []
        values.reserveCapacity(collection.keyValueCount)
        let isSimpleKey = !rightPath.utf8.contains(UInt8(ascii: ".")) && rightPath.utf8.first != UInt8(ascii: "@")
        let key = String(rightPath)
        if isSimpleKey, let objects = collection as? any ModelObjectCollection {
            // The common case, `employees.@sum.salary`: no boxing of the elements.
            try objects.forEachModelObject { object in
                if let value = try object.value(forKey: key), !isNull(value) { values.append(value) }
            }
            return values
        }
        try collection.forEachKeyValue { element in
            let value = isSimpleKey
                ? try KeyValuePath.value(of: element, forKey: key, fullPath: fullPath)
                : try KeyValuePath.value(of: element, forKeyPath: rightPath, fullPath: fullPath)
            if let value, !isNull(value) { values.append(value) }
        }
        return values
    }

    /// Adds up a declared property of every model object in the collection, reading it straight
    /// from the objects' key tables (doubles without boxing); nil when the path is not one
    /// declared key of model objects, for the general path to handle.
    private static func directAccumulation(
        of collection: any KeyValueCollection, key path: Substring, _ fullPath: String
    ) throws -> NumberAccumulator? {
        guard let objects = collection as? any ModelObjectCollection,
              !path.utf8.contains(UInt8(ascii: ".")), path.utf8.first != UInt8(ascii: "@")
        else { return nil }
        let key = String(path)
        var accumulator = NumberAccumulator()
        var table: PropertyTable?
        var descriptor: PropertyDescriptor?
        var missing = false
        try objects.forEachModelObject { object in
            guard !missing else { return }
            if object.withPropertyTable({ $0 !== table }) {
                table = object.propertyTable
                descriptor = table?.descriptor(forKey: key)
            }
            guard let descriptor else {
                missing = true
                return
            }
            if let double = descriptor.doubleValue(in: object) {
                accumulator.add(.double(double))
            } else if let value = descriptor.value(in: object), !isNull(value) {
                accumulator.add(try number(value, fullPath))
            }
        }
        return missing ? nil : accumulator
    }

    private static func number(_ value: Any, _ fullPath: String) throws -> KeyValueNumber {
        guard let number = KeyValueNumber(value) else {
            throw KeyValueCodingError(
                .nonNumericValue, key: fullPath, className: String(reflecting: type(of: value)),
                message: "\(describeKeyValue(value)) (\(type(of: value))) is not a number")
        }
        return number
    }

    private static func sum(of values: [Any], _ fullPath: String) throws -> Any {
        var accumulator = NumberAccumulator()
        for value in values { accumulator.add(try number(value, fullPath)) }
        return try accumulator.sum(fullPath)
    }

    /// The sum divided by the number of elements, nil ones included (they count as 0), as in
    /// Cocoa; nil for an empty collection.
    private static func average(of values: [Any], count: Int, _ fullPath: String) throws -> Any? {
        guard count > 0 else { return nil }
        var accumulator = NumberAccumulator()
        for value in values { accumulator.add(try number(value, fullPath)) }
        return try accumulator.average(count: count, fullPath)
    }

    private static func extreme(of values: [Any], keeping order: ComparisonResult, _ fullPath: String) throws -> Any? {
        guard var best = values.first else { return nil }
        for value in values.dropFirst() {
            guard let comparison = compareKeyValues(value, best) else {
                throw KeyValueCodingError(
                    .nonNumericValue, key: fullPath,
                    message: "cannot compare \(describeKeyValue(value)) (\(type(of: value))) with \(describeKeyValue(best)) (\(type(of: best)))")
            }
            if comparison == order { best = value }
        }
        return best
    }

    /// Keeps the first occurrence of each value, in order.
    private static func distinct(_ values: [Any], _ fullPath: String) throws -> [Any] {
        var seen: Set<AnyHashable> = []
        var result: [Any] = []
        for value in values {
            guard let hashable = value as? AnyHashable else {
                throw KeyValueCodingError.mismatch(fullPath, in: nil, expected: AnyHashable.self, given: value)
            }
            if seen.insert(hashable).inserted { result.append(value) }
        }
        return result
    }
}

/// Adds numbers exactly: integers as `Int64` until they overflow, doubles as `Double`, and
/// anything involving a `Decimal` as `Decimal`.
struct NumberAccumulator {
    var integerSum: Int64 = 0
    var doubleSum: Double = 0
    var decimalSum: Decimal?
    var hasDouble = false

    mutating func add(_ number: KeyValueNumber) {
        switch number {
        case .signed(let value):
            let (result, overflow) = integerSum.addingReportingOverflow(value)
            if overflow {
                decimalSum = (decimalSum ?? 0) + Decimal(value)
            } else {
                integerSum = result
            }
        case .double(let value):
            hasDouble = true
            doubleSum += value
        case .unsigned(let value):
            decimalSum = (decimalSum ?? 0) + Decimal(value)
        case .decimal(let value):
            decimalSum = (decimalSum ?? 0) + value
        }
    }

    /// The sum: an `Int` (or `Int64`), a `Double`, or a `Decimal` when one value was a decimal.
    ///
    /// - Throws: ``KeyValueCodingError/Code/unrepresentableNumber`` when decimals meet doubles
    ///   adding up to an infinity (or past `Decimal`'s range), which no `Decimal` holds.
    func sum(_ fullPath: String) throws -> Any {
        if let decimalSum { return try decimalTotal(decimalSum, fullPath) }
        if hasDouble { return Double(integerSum) + doubleSum }
        return Int(exactly: integerSum) ?? integerSum
    }

    /// The sum divided by `count`.
    ///
    /// - Throws: What ``sum(_:)`` throws.
    func average(count: Int, _ fullPath: String) throws -> Any {
        if let decimalSum { return try decimalTotal(decimalSum, fullPath) / Decimal(count) }
        return (Double(integerSum) + doubleSum) / Double(count)
    }

    private func decimalTotal(_ decimalSum: Decimal, _ fullPath: String) throws -> Decimal {
        guard hasDouble else { return decimalSum + Decimal(integerSum) }
        guard let doubles = exactDecimal(doubleSum) else {
            throw KeyValueCodingError(
                .unrepresentableNumber, key: fullPath,
                message: "the doubles add up to \(doubleSum), which a Decimal cannot hold, and other values are decimals")
        }
        return decimalSum + Decimal(integerSum) + doubles
    }
}
