import Foundation

/// Writes Apple's XML property-list format, byte for byte as Core Foundation does.
///
/// The document starts with the XML declaration, the `plist` DOCTYPE and
/// `<plist version="1.0">`; elements are indented with tabs; empty arrays and dictionaries are
/// written `<array/>` and `<dict/>`; only `<`, `>` and `&` are escaped in strings and keys;
/// data is base64 in indented lines; dates are UTC to the second; reals are `%.17g`. A UID is
/// written as Core Foundation writes keyed-archiver UIDs, a dictionary holding the single key
/// `CF$UID`:
/// ```xml
/// <dict>
///     <key>CF$UID</key>
///     <integer>1</integer>
/// </dict>
/// ```
/// so a real dictionary of that one key and a non-negative integer reads back as a UID.
///
/// XML loses some detail that binary keeps: dates are rounded down to the second, 4-byte reals
/// read back as 8-byte reals, and dictionary keys are sorted unless `sortsKeys` is false.
package struct XMLPropertyListWriter: Sendable {
    /// Whether dictionary keys are written in order of their UTF-16 code units, as Core
    /// Foundation writes them (the default), rather than in insertion order.
    package var sortsKeys = true
    /// How deeply arrays and dictionaries may nest; deeper values throw `nestingTooDeep`.
    package var maximumDepth = PropertyListLimits.maximumDepth

    package init() {}

    /// Encodes a value as an XML property list (UTF-8).
    package func write(_ value: PropertyListValue) throws -> [UInt8] {
        var emitter = Emitter(sortsKeys: sortsKeys, maximumDepth: maximumDepth)
        emitter.append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """)
        try emitter.emit(value, indent: 0)
        emitter.append("</plist>\n")
        return emitter.bytes
    }

    /// Encodes a value as an XML property list, as `Data`.
    package func data(for value: PropertyListValue) throws -> Data {
        Data(try write(value))
    }
}

extension XMLPropertyListWriter {
    fileprivate struct Emitter {
        let sortsKeys: Bool
        let maximumDepth: Int
        var bytes: [UInt8] = []

        init(sortsKeys: Bool, maximumDepth: Int) {
            self.sortsKeys = sortsKeys
            self.maximumDepth = maximumDepth
            bytes.reserveCapacity(4096)
        }

        mutating func append(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        mutating func indent(_ level: Int) {
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: level))
        }

        /// `<tag>text</tag>` and a newline, the text escaped or not.
        mutating func element(_ tag: String, _ text: String, escaped: Bool) {
            bytes.append(UInt8(ascii: "<"))
            append(tag)
            bytes.append(UInt8(ascii: ">"))
            if escaped { appendEscaped(text) } else { append(text) }
            append("</")
            append(tag)
            append(">\n")
        }

        mutating func appendEscaped(_ text: String) {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "<"): append("&lt;")
                case UInt8(ascii: ">"): append("&gt;")
                case UInt8(ascii: "&"): append("&amp;")
                default: bytes.append(byte)
                }
            }
        }

        mutating func emit(_ value: PropertyListValue, indent level: Int) throws {
            indent(level)
            switch value {
            case .string(let string):
                element("string", string, escaped: true)
            case .integer(let integer):
                element("integer", String(integer), escaped: false)
            case .unsignedInteger(let integer):
                element("integer", String(integer), escaped: false)
            case .real(let real):
                element("real", XMLPropertyListText.format(real), escaped: false)
            case .float(let real):
                element("real", XMLPropertyListText.format(Double(real)), escaped: false)
            case .bool(let bool):
                append(bool ? "<true/>\n" : "<false/>\n")
            case .date(let date):
                guard let text = XMLPropertyListText.format(date) else {
                    throw PropertyListError(
                        .unrepresentableValue,
                        message: "the date \(date.timeIntervalSinceReferenceDate) cannot be written in XML")
                }
                element("date", text, escaped: false)
            case .data(let data):
                append("<data>\n")
                XMLPropertyListText.appendBase64(data, indent: level, to: &bytes)
                indent(level)
                append("</data>\n")
            case .uid(let uid):
                append("<dict>\n")
                indent(level + 1)
                element("key", "CF$UID", escaped: false)
                indent(level + 1)
                element("integer", String(uid), escaped: false)
                indent(level)
                append("</dict>\n")
            case .array(let elements):
                try checkDepth(level)
                if elements.isEmpty {
                    append("<array/>\n")
                    return
                }
                append("<array>\n")
                for element in elements {
                    try emit(element, indent: level + 1)
                }
                indent(level)
                append("</array>\n")
            case .dictionary(let dictionary):
                try checkDepth(level)
                if dictionary.isEmpty {
                    append("<dict/>\n")
                    return
                }
                append("<dict>\n")
                var entries = dictionary.elements
                if sortsKeys {
                    entries.sort { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
                }
                for (key, value) in entries {
                    indent(level + 1)
                    element("key", key, escaped: true)
                    try emit(value, indent: level + 1)
                }
                indent(level)
                append("</dict>\n")
            }
        }

        private func checkDepth(_ level: Int) throws {
            if level >= maximumDepth {
                throw PropertyListError(
                    .nestingTooDeep,
                    message: "arrays and dictionaries are nested more than \(maximumDepth) deep")
            }
        }
    }
}
