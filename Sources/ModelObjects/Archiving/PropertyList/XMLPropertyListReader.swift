import Foundation

/// Reads Apple's XML property-list format into a `PropertyListValue`.
///
/// The reader is a small self-contained XML scanner for the property-list vocabulary, not a
/// general XML parser: it reads UTF-8 documents, skips the XML declaration, processing
/// instructions, comments and the DOCTYPE (an internal subset is skipped, and entities it
/// declares are not expanded — no entity expansion, no external fetches), and understands the
/// five predefined entities, character references and CDATA sections. Like Core Foundation,
/// it keeps text exactly (no line-ending normalization), and reads a `<dict>` holding only the
/// key `CF$UID` with a non-negative integer as a keyed-archiver UID.
///
/// It treats its input as hostile: malformed markup, unknown elements, misplaced keys, bad
/// integers, reals, dates or base64, invalid UTF-8 and excessive nesting all throw a
/// `PropertyListError` carrying the byte offset (and the line in the message). Containers are
/// tracked with an explicit stack, so deep input cannot exhaust the call stack, and the work
/// is linear in the size of the input.
package struct XMLPropertyListReader: Sendable {
    /// How deeply arrays and dictionaries may nest; deeper input throws `nestingTooDeep`.
    package var maximumDepth = PropertyListLimits.maximumDepth

    package init() {}

    /// Decodes an XML property list.
    package func read(_ bytes: some ContiguousBytes) throws -> PropertyListValue {
        try bytes.withUnsafeBytes { buffer in
            var scanner = Scanner(bytes: buffer, maximumDepth: maximumDepth)
            return try scanner.parseDocument()
        }
    }
}

extension XMLPropertyListReader {
    /// The elements of the property-list vocabulary.
    fileprivate enum Element: Equatable {
        case plist, dict, array, key, string, data, date, integer, real, `true`, `false`
        case unknown(String)

        init(name: UnsafeRawBufferPointer) {
            switch String(decoding: name, as: UTF8.self) {
            case "plist": self = .plist
            case "dict": self = .dict
            case "array": self = .array
            case "key": self = .key
            case "string": self = .string
            case "data": self = .data
            case "date": self = .date
            case "integer": self = .integer
            case "real": self = .real
            case "true": self = .true
            case "false": self = .false
            case let other: self = .unknown(other)
            }
        }

        var name: String {
            switch self {
            case .plist: "plist"
            case .dict: "dict"
            case .array: "array"
            case .key: "key"
            case .string: "string"
            case .data: "data"
            case .date: "date"
            case .integer: "integer"
            case .real: "real"
            case .true: "true"
            case .false: "false"
            case .unknown(let name): name
            }
        }
    }

    /// A tag: `<name …>`, `<name …/>` or `</name>`.
    fileprivate struct Tag {
        enum Kind { case start, empty, end }
        var element: Element
        var kind: Kind
        /// Where the tag's `<` is.
        var offset: Int
    }

    /// An open array or dictionary.
    fileprivate struct Container {
        var isDictionary: Bool
        var elements: [PropertyListValue] = []
        var dictionary = PropertyListDictionary()
        /// A dictionary's key waiting for its value, and where it was.
        var pendingKey: (key: String, offset: Int)?
        var offset: Int
    }

    fileprivate struct Scanner {
        let bytes: UnsafeRawBufferPointer
        let maximumDepth: Int
        var position = 0

        init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        // MARK: Errors

        func error(
            _ message: String, at offset: Int, code: PropertyListError.Code = .corruptPropertyList
        ) -> PropertyListError {
            let clamped = min(max(offset, 0), bytes.count)
            var line = 1
            for byte in bytes[0 ..< clamped] where byte == 0x0A { line += 1 }
            return PropertyListError(code, offset: clamped, message: "\(message) (line \(line))")
        }

        // MARK: Low-level scanning

        var atEnd: Bool { position >= bytes.count }

        func byte(at offset: Int) -> UInt8? {
            offset < bytes.count ? bytes[offset] : nil
        }

        func hasPrefix(_ literal: StaticString, at offset: Int) -> Bool {
            literal.withUTF8Buffer { expected in
                guard offset <= bytes.count - expected.count else { return false }
                for index in 0 ..< expected.count where bytes[offset + index] != expected[index] {
                    return false
                }
                return true
            }
        }

        static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x41 ... 0x5A, 0x61 ... 0x7A, 0x30 ... 0x39, UInt8(ascii: "_"), UInt8(ascii: "-"),
                UInt8(ascii: "."), UInt8(ascii: ":"):
                true
            default: false
            }
        }

        mutating func skipWhitespace() {
            while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
        }

        /// Moves past the next occurrence of `terminator`, or throws.
        mutating func skip(past terminator: StaticString, what: String, from start: Int) throws {
            while position < bytes.count {
                if hasPrefix(terminator, at: position) {
                    position += terminator.utf8CodeUnitCount
                    return
                }
                position += 1
            }
            throw error("unterminated \(what)", at: start)
        }

        /// Skips a `<!DOCTYPE …>`, including an internal subset in brackets (whose
        /// declarations are ignored).
        mutating func skipDoctype() throws {
            let start = position
            position += 9  // <!DOCTYPE
            var quote: UInt8?
            var inSubset = false
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "[") {
                    inSubset = true
                } else if byte == UInt8(ascii: "]") {
                    inSubset = false
                } else if byte == UInt8(ascii: ">") && !inSubset {
                    return
                }
            }
            throw error("unterminated DOCTYPE", at: start)
        }

        /// Skips white space, comments and processing instructions, and the DOCTYPE when
        /// `allowingDoctype`; stops at anything else.
        mutating func skipMisc(allowingDoctype: Bool) throws {
            while true {
                skipWhitespace()
                if hasPrefix("<!--", at: position) {
                    let start = position
                    try skip(past: "-->", what: "comment", from: start)
                } else if hasPrefix("<?", at: position) {
                    let start = position
                    try skip(past: "?>", what: "processing instruction", from: start)
                } else if allowingDoctype && hasPrefix("<!DOCTYPE", at: position) {
                    try skipDoctype()
                } else {
                    return
                }
            }
        }

        /// Reads a tag starting at `position` (which must be `<`), skipping its attributes.
        mutating func readTag() throws -> Tag {
            let start = position
            guard byte(at: position) == UInt8(ascii: "<") else {
                if atEnd { throw error("the document ends early", at: position) }
                throw error("expected a tag", at: position)
            }
            position += 1
            var kind = Tag.Kind.start
            if byte(at: position) == UInt8(ascii: "/") {
                kind = .end
                position += 1
            }
            let nameStart = position
            while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
            guard position > nameStart else {
                if atEnd { throw error("the document ends inside a tag", at: start) }
                throw error("malformed tag", at: start)
            }
            let element = Element(name: UnsafeRawBufferPointer(rebasing: bytes[nameStart ..< position]))
            while true {
                skipWhitespace()
                guard let next = byte(at: position) else {
                    throw error("the document ends inside the tag <\(element.name)>", at: start)
                }
                if next == UInt8(ascii: ">") {
                    position += 1
                    return Tag(element: element, kind: kind, offset: start)
                }
                if next == UInt8(ascii: "/") && kind == .start {
                    guard byte(at: position + 1) == UInt8(ascii: ">") else {
                        throw error("malformed tag <\(element.name)>", at: start)
                    }
                    position += 2
                    return Tag(element: element, kind: .empty, offset: start)
                }
                guard kind == .start else {
                    throw error("malformed end tag </\(element.name)>", at: start)
                }
                try skipAttribute(in: element, tagStart: start)
            }
        }

        /// Skips `name = "value"` (or single quotes).
        mutating func skipAttribute(in element: Element, tagStart: Int) throws {
            let nameStart = position
            while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
            guard position > nameStart else {
                throw error("malformed attribute in <\(element.name)>", at: position)
            }
            skipWhitespace()
            guard byte(at: position) == UInt8(ascii: "=") else {
                throw error("malformed attribute in <\(element.name)>", at: position)
            }
            position += 1
            skipWhitespace()
            guard let quote = byte(at: position), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'")
            else {
                throw error("malformed attribute value in <\(element.name)>", at: position)
            }
            position += 1
            while position < bytes.count, bytes[position] != quote { position += 1 }
            guard position < bytes.count else {
                throw error("the document ends inside the tag <\(element.name)>", at: tagStart)
            }
            position += 1
        }

        // MARK: Text

        /// Reads the text content of a scalar element up to its end tag, decoding entities and
        /// CDATA sections and skipping comments; throws on any nested element.
        mutating func readText(of element: Element, tagOffset: Int) throws -> [UInt8] {
            var text = [UInt8]()
            while true {
                let runStart = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<"),
                    bytes[position] != UInt8(ascii: "&")
                {
                    position += 1
                }
                text.append(contentsOf: bytes[runStart ..< position])
                guard position < bytes.count else {
                    throw error("the document ends inside <\(element.name)>", at: tagOffset)
                }
                if bytes[position] == UInt8(ascii: "&") {
                    try readReference(into: &text)
                } else if hasPrefix("<![CDATA[", at: position) {
                    let start = position
                    position += 9
                    let contentStart = position
                    try skip(past: "]]>", what: "CDATA section", from: start)
                    text.append(contentsOf: bytes[contentStart ..< position - 3])
                } else if hasPrefix("<!--", at: position) {
                    let start = position
                    try skip(past: "-->", what: "comment", from: start)
                } else {
                    let tag = try readTag()
                    guard tag.kind == .end, tag.element == element else {
                        throw error(
                            "unexpected tag <\(tag.kind == .end ? "/" : "")\(tag.element.name)> "
                                + "inside <\(element.name)>",
                            at: tag.offset)
                    }
                    return text
                }
            }
        }

        /// Decodes `&name;` or `&#…;` at `position`.
        mutating func readReference(into text: inout [UInt8]) throws {
            let start = position
            position += 1
            let nameStart = position
            while position < bytes.count, position - nameStart <= 10, bytes[position] != UInt8(ascii: ";") {
                position += 1
            }
            guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else {
                throw error("malformed entity reference", at: start)
            }
            let name = String(decoding: bytes[nameStart ..< position], as: UTF8.self)
            position += 1
            switch name {
            case "lt": text.append(UInt8(ascii: "<"))
            case "gt": text.append(UInt8(ascii: ">"))
            case "amp": text.append(UInt8(ascii: "&"))
            case "quot": text.append(UInt8(ascii: "\""))
            case "apos": text.append(UInt8(ascii: "'"))
            default:
                var digits = name[...]
                guard digits.first == "#" else {
                    throw error("unknown entity &\(name);", at: start)
                }
                digits = digits.dropFirst()
                var radix = 10
                if digits.first == "x" {
                    radix = 16
                    digits = digits.dropFirst()
                }
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }),
                    let value = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(value)
                else {
                    throw error("invalid character reference &\(name);", at: start)
                }
                text.append(contentsOf: String(Character(scalar)).utf8)
            }
        }

        /// The text as a string; throws if it is not valid UTF-8.
        func string(_ text: [UInt8], at offset: Int) throws -> String {
            guard let string = String(validating: text, as: UTF8.self) else {
                throw error("text is not valid UTF-8", at: offset)
            }
            return string
        }

        // MARK: Values

        /// The value of a scalar element whose start (or empty) tag has just been read.
        mutating func readScalar(_ tag: Tag) throws -> PropertyListValue {
            let isEmpty = tag.kind == .empty
            func text(_ scanner: inout Scanner) throws -> [UInt8] {
                isEmpty ? [] : try scanner.readText(of: tag.element, tagOffset: tag.offset)
            }
            switch tag.element {
            case .string:
                let content = try text(&self)
                return .string(try string(content, at: tag.offset))
            case .integer:
                let content = try text(&self)
                guard !content.isEmpty else { throw error("empty <integer>", at: tag.offset) }
                guard let value = XMLPropertyListText.parseInteger(content) else {
                    throw error(
                        "invalid integer '\(String(decoding: content.prefix(40), as: UTF8.self))'",
                        at: tag.offset)
                }
                return value
            case .real:
                let content = try text(&self)
                guard let value = XMLPropertyListText.parseReal(content) else {
                    throw error(
                        "invalid real '\(String(decoding: content.prefix(40), as: UTF8.self))'",
                        at: tag.offset)
                }
                return .real(value)
            case .date:
                let content = try text(&self)
                guard let value = XMLPropertyListText.parseDate(content) else {
                    throw error(
                        "invalid date '\(String(decoding: content.prefix(40), as: UTF8.self))'",
                        at: tag.offset)
                }
                return .date(value)
            case .data:
                let content = try text(&self)
                guard let value = XMLPropertyListText.decodeBase64(content) else {
                    throw error("invalid base64 in <data>", at: tag.offset)
                }
                return .data(value)
            case .true, .false:
                let content = try text(&self)
                guard content.allSatisfy(Self.isWhitespace) else {
                    throw error("text inside <\(tag.element.name)>", at: tag.offset)
                }
                return .bool(tag.element == .true)
            case .plist:
                throw error("a <plist> element inside the property list", at: tag.offset)
            case .key:
                throw error("a <key> outside a dictionary", at: tag.offset)
            case .unknown(let name):
                throw error("unknown element <\(name)>", at: tag.offset)
            case .dict, .array:
                throw error("unexpected <\(tag.element.name)>", at: tag.offset)  // not a scalar
            }
        }

        /// Skips white space and comments between elements; throws on other text.
        mutating func skipToTag() throws {
            while true {
                skipWhitespace()
                if hasPrefix("<!--", at: position) {
                    let start = position
                    try skip(past: "-->", what: "comment", from: start)
                    continue
                }
                guard let next = byte(at: position) else {
                    throw error("the document ends early", at: position)
                }
                guard next == UInt8(ascii: "<") else {
                    throw error("unexpected text between elements", at: position)
                }
                return
            }
        }

        /// Reads the value whose start (or empty) tag has just been read, and everything
        /// inside it.
        mutating func parseValue(startingWith first: Tag) throws -> PropertyListValue {
            var stack: [Container] = []
            var tag = first
            while true {
                var finished: PropertyListValue?
                switch (tag.kind, tag.element) {
                case (.end, .dict), (.end, .array):
                    guard let container = stack.last, container.isDictionary == (tag.element == .dict) else {
                        throw error("unexpected </\(tag.element.name)>", at: tag.offset)
                    }
                    if let pending = container.pendingKey {
                        throw error("the key '\(pending.key)' has no value", at: pending.offset)
                    }
                    stack.removeLast()
                    finished =
                        container.isDictionary
                        ? Self.value(of: container.dictionary) : .array(container.elements)
                case (.end, _):
                    throw error("unexpected </\(tag.element.name)>", at: tag.offset)
                case (.start, .dict), (.start, .array), (.empty, .dict), (.empty, .array):
                    guard stack.count < maximumDepth else {
                        throw error(
                            "arrays and dictionaries are nested more than \(maximumDepth) deep",
                            at: tag.offset, code: .nestingTooDeep)
                    }
                    if tag.kind == .start {
                        stack.append(Container(isDictionary: tag.element == .dict, offset: tag.offset))
                    } else {
                        finished = tag.element == .dict ? .dictionary(PropertyListDictionary()) : .array([])
                    }
                case (_, .key):
                    guard let last = stack.indices.last, stack[last].isDictionary else {
                        throw error("a <key> outside a dictionary", at: tag.offset)
                    }
                    if let pending = stack[last].pendingKey {
                        throw error("the key '\(pending.key)' has no value", at: pending.offset)
                    }
                    let text = tag.kind == .empty ? [] : try readText(of: .key, tagOffset: tag.offset)
                    stack[last].pendingKey = (try string(text, at: tag.offset), tag.offset)
                default:
                    finished = try readScalar(tag)
                }
                if let value = finished {
                    guard let last = stack.indices.last else { return value }
                    if stack[last].isDictionary {
                        guard let pending = stack[last].pendingKey else {
                            throw error("a dictionary value without a <key>", at: tag.offset)
                        }
                        stack[last].dictionary[pending.key] = value
                        stack[last].pendingKey = nil
                    } else {
                        stack[last].elements.append(value)
                    }
                }
                try skipToTag()
                tag = try readTag()
            }
        }

        /// A dictionary's value: a UID if it holds only `CF$UID` with a non-negative integer.
        static func value(of dictionary: PropertyListDictionary) -> PropertyListValue {
            if dictionary.count == 1, let uid = dictionary["CF$UID"] {
                switch uid {
                case .integer(let value) where value >= 0: return .uid(UInt64(value))
                case .unsignedInteger(let value): return .uid(value)
                default: break
                }
            }
            return .dictionary(dictionary)
        }

        // MARK: Document

        mutating func parseDocument() throws -> PropertyListValue {
            if bytes.count >= 2
                && ((bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE)
                    || bytes[0] == 0 || bytes[1] == 0)
            {
                throw PropertyListError(
                    .unsupportedFormat, offset: 0,
                    message: "UTF-16 and UTF-32 XML property lists are not supported")
            }
            if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
                position = 3  // UTF-8 byte-order mark
            }
            try skipMisc(allowingDoctype: true)
            guard !atEnd else { throw error("the document holds no property list", at: position) }
            let root = try readTag()
            let value: PropertyListValue
            if root.element == .plist {
                guard root.kind == .start else {
                    throw error(
                        root.kind == .empty ? "empty <plist>" : "unexpected </plist>", at: root.offset)
                }
                try skipMisc(allowingDoctype: false)
                let first = try readTag()
                if first.kind == .end && first.element == .plist {
                    throw error("empty <plist>", at: first.offset)
                }
                value = try parseValue(startingWith: first)
                try skipMisc(allowingDoctype: false)
                let end = try readTag()
                guard end.kind == .end, end.element == .plist else {
                    throw error("expected </plist> after the property list's value", at: end.offset)
                }
            } else {
                value = try parseValue(startingWith: root)
            }
            try skipMisc(allowingDoctype: false)
            guard atEnd else { throw error("unexpected content after the property list", at: position) }
            return value
        }
    }
}
