import Foundation

extension KeyValuePredicate: CustomStringConvertible {
    /// The predicate as a format string, which parses back to an equal predicate.
    ///
    /// Strings print in double quotes with backslash escapes; `Bool` constants as `TRUE`/`FALSE`;
    /// dates as `CAST(<seconds since 2001>, "NSDate")`; decimals as
    /// `CAST("<digits>", "NSDecimalNumber")`; keys named like reserved words with `#`; nested
    /// `AND`/`OR` in parentheses. Constants the format cannot write (model objects, UUIDs, data)
    /// print as their description, which does not parse back, as in Cocoa; so do empty and
    /// one-element compounds, which print as their equivalent.
    ///
    /// ```swift
    /// try KeyValuePredicate(format: "name = 'Ann' && NOT age<30").predicateFormat
    /// // name == "Ann" AND NOT age < 30
    /// ```
    ///
    /// Corresponds to Cocoa's `-[NSPredicate predicateFormat]`.
    public var predicateFormat: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The ``predicateFormat``.
    public var description: String { predicateFormat }

    func write(to output: inout String) {
        switch self {
        case .truePredicate:
            output += "TRUEPREDICATE"
        case .falsePredicate:
            output += "FALSEPREDICATE"
        case .comparison(let comparison):
            comparison.write(to: &output)
        case .and(let predicates):
            writeCompound(predicates, separator: " AND ", empty: "TRUEPREDICATE", to: &output)
        case .or(let predicates):
            writeCompound(predicates, separator: " OR ", empty: "FALSEPREDICATE", to: &output)
        case .not(let predicate):
            output += "NOT "
            predicate.writeAsOperand(to: &output)
        }
    }

    private func writeCompound(_ predicates: [KeyValuePredicate], separator: String, empty: String, to output: inout String) {
        guard let first = predicates.first else {
            output += empty
            return
        }
        guard predicates.count > 1 else {
            first.write(to: &output)
            return
        }
        for (index, predicate) in predicates.enumerated() {
            if index > 0 { output += separator }
            predicate.writeAsOperand(to: &output)
        }
    }

    /// Writes the predicate as an operand of `AND`, `OR` or `NOT`: compounds in parentheses.
    private func writeAsOperand(to output: inout String) {
        switch self {
        case .and(let predicates), .or(let predicates):
            if predicates.count > 1 {
                output += "("
                write(to: &output)
                output += ")"
            } else {
                write(to: &output)
            }
        default:
            write(to: &output)
        }
    }
}

extension KeyValuePredicate.Comparison: CustomStringConvertible {
    /// The comparison as a format string: `ANY employees.salary > 50000`.
    ///
    /// Corresponds to Cocoa's `-[NSPredicate predicateFormat]` on an `NSComparisonPredicate`.
    public var predicateFormat: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The ``predicateFormat``.
    public var description: String { predicateFormat }

    func write(to output: inout String) {
        switch modifier {
        case .direct: break
        case .any: output += "ANY "
        case .all: output += "ALL "
        }
        leftExpression.write(to: &output)
        output += " "
        output += operatorType.symbol
        output += options.formatSuffix
        output += " "
        rightExpression.write(to: &output)
    }
}

extension KeyValueExpression: CustomStringConvertible {
    /// The expression as a format string: `"Ann"`, `department.name`, `$e.salary`,
    /// `SUBQUERY(employees, $e, $e.salary > 10)`.
    ///
    /// Corresponds to Cocoa's `-[NSExpression description]`.
    public var expressionFormat: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The ``expressionFormat``.
    public var description: String { expressionFormat }

    func write(to output: inout String) {
        switch self {
        case .constant(let value):
            writeConstant(value, to: &output)
        case .evaluatedObject:
            output += "SELF"
        case .keyPath(let path):
            writeKeyPath(path, escapingFirstKey: true, to: &output)
        case .variable(let name):
            output += "$" + name
        case .keyPathOn(let base, let path):
            base.write(to: &output)
            output += "."
            writeKeyPath(path, escapingFirstKey: false, to: &output)
        case .aggregate(let elements):
            output += "{"
            for (index, element) in elements.enumerated() {
                if index > 0 { output += ", " }
                element.write(to: &output)
            }
            output += "}"
        case .subquery(let collection, let variable, let predicate):
            output += "SUBQUERY("
            collection.write(to: &output)
            output += ", $" + variable + ", "
            predicate.write(to: &output)
            output += ")"
        }
    }
}

/// Writes a key path, with `#` before keys the parser would read as reserved words (only the
/// first key: after a dot every word is a key).
private func writeKeyPath(_ path: String, escapingFirstKey: Bool, to output: inout String) {
    if escapingFirstKey, !path.hasPrefix("@") {
        let first = path.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if PredicateLexer.reservedWords.contains(first.uppercased()) { output += "#" }
    }
    output += path
}

/// Writes a constant so that the parser reads back an equal one.
private func writeConstant(_ value: Any?, to output: inout String) {
    guard let value = nilForNull(value) else {
        output += "nil"
        return
    }
    if type(of: value) == Bool.self, let bool = value as? Bool {
        output += bool ? "TRUE" : "FALSE"
    } else if let string = stringValue(value) {
        writeQuoted(string, to: &output)
    } else if let number = KeyValueNumber(value) {
        switch number {
        case .signed(let integer): output += String(integer)
        case .unsigned(let integer): output += String(integer)
        case .double(let double): output += formatDouble(double)
        case .decimal(let decimal):
            output += "CAST(\"\(decimal)\", \"NSDecimalNumber\")"
        }
    } else if let date = value as? Date {
        output += "CAST(\(formatDouble(date.timeIntervalSinceReferenceDate)), \"NSDate\")"
    } else if let collection = value as? any KeyValueCollection {
        output += "{"
        var first = true
        collection.forEachKeyValue { element in
            if !first { output += ", " }
            first = false
            writeConstant(element, to: &output)
        }
        output += "}"
    } else {
        output += describeKeyValue(value)
    }
}

/// The shortest text that reads back as the same double.
private func formatDouble(_ double: Double) -> String {
    if double.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
    if double.isInfinite { return double < 0 ? "-1e999" : "1e999" }
    return "\(double)"
}

private func writeQuoted(_ string: String, to output: inout String) {
    output += "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": output += "\\\""
        case "\\": output += "\\\\"
        case "\n": output += "\\n"
        case "\t": output += "\\t"
        case "\r": output += "\\r"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: output.unicodeScalars.append(scalar)
        }
    }
    output += "\""
}
