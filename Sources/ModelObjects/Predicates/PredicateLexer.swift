import Foundation

/// A token of a predicate format string.
struct PredicateToken {
    enum Kind {
        /// A bare word: a keyword when ``PredicateToken/keyword`` says so, else a key.
        case word(String)
        /// `#word`: a key, even when it spells a reserved word.
        case escapedWord(String)
        /// `@word`: a collection operator in a key path.
        case operatorWord(String)
        /// A quoted string, its escapes resolved.
        case string(String)
        /// A number: `Int`, `Double`, `UInt64` for integers above `Int.max`, or `Decimal` for
        /// integers beyond 64 bits.
        case number(Any)
        /// `$name`.
        case variable(String)
        /// `%@`, `%K`, `%d`, …: the letters after the `%`.
        case formatSpecifier(String)
        /// An operator or punctuation: `==`, `<=`, `&&`, `(`, `{`, `,`, `.`, `[`, …
        case symbol(String)
        case end
    }

    var kind: Kind
    /// The number of Unicode scalars before the token.
    var offset: Int

    /// The keyword a bare word spells (uppercased), when it is one of Cocoa's reserved words.
    var keyword: String? {
        guard case .word(let word) = kind else { return nil }
        let upper = word.uppercased()
        return PredicateLexer.reservedWords.contains(upper) ? upper : nil
    }

    func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let text) = kind { return text == symbol }
        return false
    }

    func isKeyword(_ word: String) -> Bool { keyword == word }

    /// The token as an error message shows it.
    var display: String {
        switch kind {
        case .word(let word): "'\(word)'"
        case .escapedWord(let word): "'#\(word)'"
        case .operatorWord(let word): "'@\(word)'"
        case .string(let string): "the string \"\(string)\""
        case .number(let number): "the number \(number)"
        case .variable(let name): "'$\(name)'"
        case .formatSpecifier(let letters): "'%\(letters)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the format string"
        }
    }
}

/// Splits a predicate format string into tokens.
struct PredicateLexer {
    /// Cocoa's reserved words: case-insensitive keywords that a key must escape with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI",
        "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE",
        "YES", "FALSE", "NO", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST",
        "TRUEPREDICATE", "FALSEPREDICATE", "UTI-CONFORMS-TO", "UTI-EQUALS", "FUNCTION",
    ]

    private let scalars: [Unicode.Scalar]
    private let format: String
    private var position = 0

    init(format: String) {
        self.format = format
        scalars = Array(format.unicodeScalars)
    }

    /// Every token, ending with `.end`.
    mutating func tokenize() throws(KeyValuePredicateError) -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            let token = try next()
            tokens.append(token)
            if case .end = token.kind { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < scalars.count ? scalars[position + ahead] : nil
    }

    private func error(_ expected: String, at offset: Int, found: String? = nil) -> KeyValuePredicateError {
        let foundText = found ?? (offset < scalars.count ? "'\(scalars[offset])'" : "the end of the format string")
        return KeyValuePredicateError(
            .syntaxError, message: "expected \(expected) at offset \(offset), found \(foundText)",
            offset: offset, expected: expected, format: format)
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func isIdentifierContinuation(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar) || (!scalar.isASCII && scalar.properties.numericType != nil)
    }

    private mutating func identifier() -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek(), Self.isIdentifierContinuation(scalar) {
            text.append(scalar)
            position += 1
        }
        return String(text)
    }

    private mutating func next() throws(KeyValuePredicateError) -> PredicateToken {
        while let scalar = peek(), scalar.properties.isWhitespace { position += 1 }
        let start = position
        guard let scalar = peek() else { return PredicateToken(kind: .end, offset: start) }
        func token(_ kind: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: kind, offset: start) }

        if Self.isIdentifierStart(scalar) {
            var word = identifier()
            // UTI-CONFORMS-TO and UTI-EQUALS are reserved words with hyphens.
            if word.uppercased() == "UTI", peek() == "-", let after = peek(1), Self.isIdentifierStart(after) {
                let save = position
                position += 1
                let rest = identifier()
                if ["CONFORMS", "EQUALS"].contains(rest.uppercased()) {
                    word += "-" + rest
                    if rest.uppercased() == "CONFORMS", peek() == "-", peek(1).map(Self.isIdentifierStart) == true {
                        position += 1
                        word += "-" + identifier()
                    }
                } else {
                    position = save
                }
            }
            return token(.word(word))
        }
        switch scalar {
        case "#", "@", "$":
            position += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw error(scalar == "$" ? "a variable name after '$'" : "a key after '\(scalar)'", at: position)
            }
            let name = identifier()
            return token(scalar == "#" ? .escapedWord(name) : scalar == "@" ? .operatorWord(name) : .variable(name))
        case "\"", "'":
            return token(.string(try quotedString()))
        case "%":
            position += 1
            var letters = ""
            while let letter = peek(), letter == "l" || letter == "h" || letter == "q" {
                letters.unicodeScalars.append(letter)
                position += 1
            }
            guard let conversion = peek(), "@Kdiuf".unicodeScalars.contains(conversion) else {
                throw error("a format specifier (%@, %K, %d, %i, %u, %f, %ld, %lld, %lu, %lf)", at: start)
            }
            letters.unicodeScalars.append(conversion)
            position += 1
            return token(.formatSpecifier(letters))
        default:
            break
        }
        if ("0"..."9").contains(scalar) || (scalar == "-" && peek(1).map { ("0"..."9").contains($0) } == true) {
            return token(.number(try number()))
        }
        let twoCharacter: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"]
        if let second = peek(1) {
            let pair = String(scalar) + String(second)
            if twoCharacter.contains(pair) {
                position += 2
                return token(.symbol(pair))
            }
        }
        if "=<>!(){}[],.+-*/:;".unicodeScalars.contains(scalar) {
            position += 1
            return token(.symbol(String(scalar)))
        }
        throw error("a key, a value, an operator or a parenthesis", at: start)
    }

    /// A quoted string, from its opening quote, with `\"`, `\'`, `\\`, `\n`, `\t`, `\r`, `\0`,
    /// `\uXXXX` and `\xHH` escapes.
    private mutating func quotedString() throws(KeyValuePredicateError) -> String {
        let start = position
        guard let quote = peek() else { throw error("a string", at: start) }
        position += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw error("a closing \(quote) for the string that starts at offset \(start)", at: position)
            }
            position += 1
            if scalar == quote { return String(text) }
            guard scalar == "\\" else {
                text.append(scalar)
                continue
            }
            guard let escaped = peek() else {
                throw error("a character after '\\'", at: position)
            }
            position += 1
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0": text.append("\0")
            case "u", "x":
                let digits = escaped == "u" ? 4 : 2
                var value: UInt32 = 0
                for _ in 0..<digits {
                    guard let digit = peek(), let digitValue = hexValue(digit) else {
                        throw error("\(digits) hexadecimal digits after '\\\(escaped)'", at: position)
                    }
                    value = value * 16 + digitValue
                    position += 1
                }
                guard let unicode = Unicode.Scalar(value) else {
                    throw error("a valid Unicode scalar after '\\\(escaped)'", at: position - digits)
                }
                text.append(unicode)
            default:
                text.append(escaped)
            }
        }
    }

    private func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 48
        case "a"..."f": scalar.value - 87
        case "A"..."F": scalar.value - 55
        default: nil
        }
    }

    /// A number: decimal integers and floating-point numbers with an optional exponent, and
    /// `0x`, `0o`, `0b` integers; an optional leading `-`.
    private mutating func number() throws(KeyValuePredicateError) -> Any {
        let start = position
        var text = ""
        if peek() == "-" {
            text = "-"
            position += 1
        }
        if peek() == "0", let prefix = peek(1), let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][prefix] {
            position += 2
            var digits = ""
            while let scalar = peek(), let value = hexValue(scalar), value < radix {
                digits.unicodeScalars.append(scalar)
                position += 1
            }
            if let scalar = peek(), Self.isIdentifierContinuation(scalar) {
                throw error("a base-\(radix) digit", at: position)
            }
            guard !digits.isEmpty else { throw error("a base-\(radix) digit", at: position) }
            guard let value = Int(text + digits, radix: radix) else {
                throw KeyValuePredicateError(
                    .syntaxError, message: "the number at offset \(start) is too big",
                    offset: start, expected: "a number that fits in 64 bits", format: format)
            }
            return value
        }
        func digits() {
            while let scalar = peek(), ("0"..."9").contains(scalar) {
                text.unicodeScalars.append(scalar)
                position += 1
            }
        }
        digits()
        var isInteger = true
        if peek() == ".", let after = peek(1), ("0"..."9").contains(after) {
            isInteger = false
            text += "."
            position += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            var ahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { ahead = 2 }
            if let digit = peek(ahead), ("0"..."9").contains(digit) {
                isInteger = false
                text += "e"
                if ahead == 2, let sign = peek(1) { text.unicodeScalars.append(sign) }
                position += ahead
                digits()
            }
        }
        if let scalar = peek(), Self.isIdentifierStart(scalar) {
            throw error("a digit or the end of the number", at: position)
        }
        if isInteger {
            if let value = Int(text) { return value }
            if let value = UInt64(text) { return value }
            if let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { return value }
        } else if let value = Double(text) {
            return value
        }
        throw KeyValuePredicateError(
            .syntaxError, message: "'\(text)' at offset \(start) is not a number",
            offset: start, expected: "a number", format: format)
    }
}
