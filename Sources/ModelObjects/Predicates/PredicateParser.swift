import Foundation

/// A recursive-descent parser for Cocoa's predicate format strings.
///
/// Grammar (keywords case-insensitive; `OR` binds loosest, then `AND`, then `NOT`):
/// ```
/// predicate   := and ( (OR | ||) and )*
/// and         := not ( (AND | &&) not )*
/// not         := (NOT | !) not | primary
/// primary     := '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison  := [ANY | SOME | ALL | NONE] expression operator ['[' c|d|n… ']'] expression
/// operator    := == | = | != | <> | < | <= | =< | > | >= | => | BEGINSWITH | ENDSWITH
///              | CONTAINS | LIKE | MATCHES | IN | BETWEEN
/// expression  := primaryExpression ( '.' keyPath )*
/// primaryExpression := string | number | TRUE | YES | FALSE | NO | NIL | NULL | SELF
///              | '{' [expression (',' expression)*] '}' | $variable | %@ | %K | %d …
///              | SUBQUERY '(' expression ',' $variable ',' predicate ')'
///              | CAST '(' expression ',' string ')' | keyPath
/// keyPath     := key ( '.' key )*      key := word | #word | @word
/// ```
/// Every recursion goes through ``enter()``, which bounds the nesting depth.
struct PredicateParser {
    private let format: String
    private let arguments: [Any?]
    private var tokens: [PredicateToken] = []
    private var index = 0
    private var argumentIndex = 0
    private var depth = 0

    init(format: String, arguments: [Any?]) {
        self.format = format
        self.arguments = arguments
    }

    mutating func parsePredicate() throws -> KeyValuePredicate {
        var lexer = PredicateLexer(format: format)
        tokens = try lexer.tokenize()
        let predicate = try predicate()
        guard case .end = current.kind else {
            throw syntaxError(expected: "AND, OR or the end of the format string")
        }
        return predicate
    }

    // MARK: - Tokens

    private var current: PredicateToken { tokens[min(index, tokens.count - 1)] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func syntaxError(expected: String, at token: PredicateToken? = nil) -> KeyValuePredicateError {
        let token = token ?? current
        return KeyValuePredicateError(
            .syntaxError, message: "expected \(expected) at offset \(token.offset), found \(token.display)",
            offset: token.offset, expected: expected, format: format)
    }

    private func unsupported(_ what: String, at token: PredicateToken? = nil) -> KeyValuePredicateError {
        let token = token ?? current
        return KeyValuePredicateError(
            .unsupportedSyntax, message: "\(what) at offset \(token.offset) is not supported",
            offset: token.offset, format: format)
    }

    private mutating func expectSymbol(_ symbol: String) throws {
        guard current.isSymbol(symbol) else { throw syntaxError(expected: "'\(symbol)'") }
        advance()
    }

    /// Counts one level of nesting; throws past ``KeyValuePredicate/maximumNestingDepth``.
    private mutating func enter() throws {
        depth += 1
        guard depth <= KeyValuePredicate.maximumNestingDepth else {
            throw KeyValuePredicateError(
                .nestingTooDeep,
                message: "the format string nests deeper than \(KeyValuePredicate.maximumNestingDepth) levels at offset \(current.offset)",
                offset: current.offset, format: format)
        }
    }

    private mutating func leave() { depth -= 1 }

    // MARK: - Predicates

    private mutating func predicate() throws -> KeyValuePredicate {
        var terms = [try andPredicate()]
        while current.isKeyword("OR") || current.isSymbol("||") {
            advance()
            terms.append(try andPredicate())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func andPredicate() throws -> KeyValuePredicate {
        var terms = [try notPredicate()]
        while current.isKeyword("AND") || current.isSymbol("&&") {
            advance()
            terms.append(try notPredicate())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func notPredicate() throws -> KeyValuePredicate {
        guard current.isKeyword("NOT") || current.isSymbol("!") else { return try primaryPredicate() }
        advance()
        try enter()
        defer { leave() }
        return .not(try notPredicate())
    }

    private mutating func primaryPredicate() throws -> KeyValuePredicate {
        if current.isSymbol("(") {
            advance()
            try enter()
            defer { leave() }
            let predicate = try predicate()
            try expectSymbol(")")
            return predicate
        }
        if current.isKeyword("TRUEPREDICATE") {
            advance()
            return .truePredicate
        }
        if current.isKeyword("FALSEPREDICATE") {
            advance()
            return .falsePredicate
        }
        return try comparison()
    }

    private static let symbolOperators: [String: KeyValuePredicate.Comparison.Operator] = [
        "==": .equalTo, "=": .equalTo, "!=": .notEqualTo, "<>": .notEqualTo,
        "<": .lessThan, "<=": .lessThanOrEqualTo, "=<": .lessThanOrEqualTo,
        ">": .greaterThan, ">=": .greaterThanOrEqualTo, "=>": .greaterThanOrEqualTo,
    ]

    private static let keywordOperators: [String: KeyValuePredicate.Comparison.Operator] = [
        "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "CONTAINS": .contains, "LIKE": .like,
        "MATCHES": .matches, "IN": .in, "BETWEEN": .between,
    ]

    private mutating func comparison() throws -> KeyValuePredicate {
        var modifier = KeyValuePredicate.Comparison.Modifier.direct
        var negated = false
        switch current.keyword {
        case "ANY", "SOME": modifier = .any
        case "ALL": modifier = .all
        case "NONE":
            modifier = .any
            negated = true
        default: break
        }
        if modifier != .direct { advance() }

        let left = try expression()
        let operatorType: KeyValuePredicate.Comparison.Operator
        if case .symbol(let symbol) = current.kind, let found = Self.symbolOperators[symbol] {
            operatorType = found
        } else if let keyword = current.keyword, let found = Self.keywordOperators[keyword] {
            operatorType = found
        } else if case .symbol(let symbol) = current.kind, ["+", "-", "*", "/", "**"].contains(symbol) {
            throw unsupported("arithmetic ('\(symbol)')")
        } else if current.isSymbol("[") {
            throw unsupported("an index subscript")
        } else if current.keyword == "UTI-CONFORMS-TO" || current.keyword == "UTI-EQUALS" {
            throw unsupported(current.keyword ?? "")
        } else {
            throw syntaxError(expected: "a comparison operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN, BETWEEN)")
        }
        advance()
        let options = try comparisonOptions()
        let rightToken = current
        let right = try expression()

        if operatorType == .between, case .constant(let value) = right {
            guard let bounds = value.flatMap({ $0 as? any KeyValueCollection }),
                  bounds.keyValueCount == 2, bounds.isOrderedKeyValueCollection else {
                throw syntaxError(expected: "an array of two values after BETWEEN", at: rightToken)
            }
        }
        if operatorType == .matches, case .constant(let value?) = right, let pattern = stringValue(value) {
            do {
                _ = try compileRegularExpression(pattern, options)
            } catch {
                var located = error
                located.offset = rightToken.offset
                located.format = format
                throw located
            }
        }
        let comparison = KeyValuePredicate.comparison(
            KeyValuePredicate.Comparison(left, operatorType, right, modifier: modifier, options: options))
        return negated ? .not(comparison) : comparison
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]`… after an operator.
    private mutating func comparisonOptions() throws -> KeyValuePredicate.Comparison.Options {
        guard current.isSymbol("[") else { return [] }
        advance()
        let expected = "comparison options ('c', 'd', 'n')"
        guard case .word(let letters) = current.kind else { throw syntaxError(expected: expected) }
        var options: KeyValuePredicate.Comparison.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default: throw syntaxError(expected: expected)
            }
        }
        advance()
        try expectSymbol("]")
        return options
    }

    // MARK: - Expressions

    private mutating func expression() throws -> KeyValueExpression {
        var expression = try primaryExpression()
        while current.isSymbol(".") {
            advance()
            let path = try keyPath()
            switch expression {
            case .keyPath(let base): expression = .keyPath(base + "." + path)
            case .evaluatedObject: expression = .keyPath(path)
            case .keyPathOn(let base, let basePath): expression = .keyPathOn(base, basePath + "." + path)
            default: expression = .keyPathOn(expression, path)
            }
        }
        if current.isSymbol("[") {
            // An options bracket follows operators, never expressions: this is a subscript.
            throw unsupported("an index subscript")
        }
        return expression
    }

    /// Keys separated by dots. After a dot any word is a key, reserved or not; the first key
    /// must escape a reserved word with `#` (the caller has checked it is not one).
    private mutating func keyPath() throws -> String {
        var segments: [String] = []
        while true {
            switch current.kind {
            case .word(let word), .escapedWord(let word): segments.append(word)
            case .operatorWord(let word): segments.append("@" + word)
            default: throw syntaxError(expected: "a key")
            }
            advance()
            guard current.isSymbol("."), index + 1 < tokens.count else { break }
            switch tokens[index + 1].kind {
            case .word, .escapedWord, .operatorWord:
                advance()
            default:
                advance()
                throw syntaxError(expected: "a key")
            }
        }
        return segments.joined(separator: ".")
    }

    private mutating func primaryExpression() throws -> KeyValueExpression {
        let token = current
        switch token.kind {
        case .string(let string):
            advance()
            return .constant(string)
        case .number(let number):
            advance()
            return .constant(number)
        case .variable(let name):
            advance()
            return .variable(name)
        case .formatSpecifier(let letters):
            advance()
            return try formatArgument(letters, at: token)
        case .escapedWord, .operatorWord:
            return .keyPath(try keyPath())
        case .word:
            guard let keyword = token.keyword else {
                return .keyPath(try keyPath())
            }
            switch keyword {
            case "TRUE", "YES":
                advance()
                return .constant(true)
            case "FALSE", "NO":
                advance()
                return .constant(false)
            case "NIL", "NULL":
                advance()
                return .constant(nil)
            case "SELF":
                advance()
                return .evaluatedObject
            case "SUBQUERY":
                return try subquery()
            case "CAST":
                return try cast()
            case "FIRST", "LAST", "SIZE", "ANYKEY", "FETCH", "FUNCTION", "CASEINSENSITIVE", "CI":
                throw unsupported(keyword)
            default:
                throw syntaxError(expected: "an expression (a key path, a value or a variable; escape a key named like a reserved word as #\(keyword.lowercased()))")
            }
        case .symbol("{"):
            advance()
            try enter()
            defer { leave() }
            var elements: [KeyValueExpression] = []
            if !current.isSymbol("}") {
                elements.append(try expression())
                while current.isSymbol(",") {
                    advance()
                    elements.append(try expression())
                }
            }
            try expectSymbol("}")
            return KeyValueExpression.folding(elements)
        case .symbol("("):
            throw unsupported("a parenthesized expression")
        case .symbol("-"), .symbol("+"):
            throw unsupported("arithmetic")
        default:
            throw syntaxError(expected: "an expression")
        }
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    private mutating func subquery() throws -> KeyValueExpression {
        advance()
        try enter()
        defer { leave() }
        try expectSymbol("(")
        let collection = try expression()
        try expectSymbol(",")
        guard case .variable(let variable) = current.kind else {
            throw syntaxError(expected: "a variable such as $x for the elements of the SUBQUERY")
        }
        advance()
        try expectSymbol(",")
        let predicate = try predicate()
        try expectSymbol(")")
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }

    /// `CAST(value, "NSDate")`, `CAST(value, "NSDecimalNumber")`, `CAST(value, "NSNumber")`,
    /// `CAST(value, "NSString")` of a constant, folded into the constant.
    private mutating func cast() throws -> KeyValueExpression {
        let castToken = current
        advance()
        try enter()
        defer { leave() }
        try expectSymbol("(")
        let valueToken = current
        let value = try expression()
        try expectSymbol(",")
        guard case .string(let className) = current.kind else {
            throw syntaxError(expected: "a class name string such as \"NSDate\"")
        }
        advance()
        try expectSymbol(")")
        guard case .constant(let constant?) = value else {
            throw unsupported("CAST of a value that is not a constant", at: castToken)
        }
        let number = KeyValueNumber(constant) ?? stringValue(constant).flatMap { Double($0) }.flatMap(KeyValueNumber.init)
        switch className {
        case "NSDate":
            if let number, stringValue(constant) == nil { return .constant(Date(timeIntervalSinceReferenceDate: number.doubleValue)) }
        case "NSDecimalNumber":
            // `Decimal(string:)` reads a prefix ("-inf" as 0): only a string that is a finite
            // number as a whole converts here; NaN and infinities go through the double.
            if let string = stringValue(constant), Double(string)?.isFinite == true,
               let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX")) {
                return .constant(decimal)
            }
            if let decimal = number?.decimalValue { return .constant(decimal) }
        case "NSNumber":
            if let number { return .constant(number.boxed) }
        case "NSString":
            if let string = stringValue(constant) { return .constant(string) }
            if let number { return .constant("\(number.boxed)") }
        default:
            throw unsupported("CAST to \(className)", at: castToken)
        }
        throw syntaxError(expected: "a value that converts to \(className)", at: valueToken)
    }

    /// The value of the next format argument for a `%` specifier.
    private mutating func formatArgument(_ letters: String, at token: PredicateToken) throws -> KeyValueExpression {
        guard argumentIndex < arguments.count else {
            throw KeyValuePredicateError(
                .missingArgument,
                message: "no argument for %\(letters) at offset \(token.offset): \(arguments.count) argument\(arguments.count == 1 ? "" : "s") given",
                offset: token.offset, format: format)
        }
        let argument = arguments[argumentIndex].flatMap(flattenOptional)
        argumentIndex += 1
        func invalid(_ expected: String) -> KeyValuePredicateError {
            KeyValuePredicateError(
                .invalidArgument,
                message: "%\(letters) at offset \(token.offset) needs \(expected), got \(argument.map { "\($0) (\(type(of: $0)))" } ?? "nil")",
                offset: token.offset, expected: expected, format: format)
        }
        switch letters.last {
        case "@":
            return .constant(argument)
        case "K":
            guard let argument, let key = stringValue(argument), !key.isEmpty else { throw invalid("a key path string") }
            return .keyPath(key)
        case "f":
            guard let argument, type(of: argument) != Bool.self, let number = KeyValueNumber(argument) else {
                throw invalid("a number")
            }
            return .constant(number.exactDouble ?? number.doubleValue)
        default:
            guard let argument, type(of: argument) != Bool.self, let number = KeyValueNumber(argument) else {
                throw invalid("an integer")
            }
            if let integer = number.exactly(Int.self) { return .constant(integer) }
            if let unsigned = number.exactly(UInt64.self) { return .constant(unsigned) }
            throw invalid("an integer")
        }
    }
}
