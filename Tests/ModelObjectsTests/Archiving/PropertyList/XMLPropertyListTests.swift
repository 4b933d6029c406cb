import Foundation
import ModelObjects
import Testing

private let header = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">

    """

/// An XML plist document around the given body.
private func plist(_ body: String) -> String { header + body + "\n</plist>\n" }

private func read(_ text: String) throws -> PropertyListValue {
    try XMLPropertyListReader().read(Array(text.utf8))
}

@Suite("XML property lists")
struct XMLPropertyListTests {
    // MARK: Writing

    @Test("the writer produces Apple's layout, with UIDs as CF$UID dictionaries")
    func layout() throws {
        let value: PropertyListValue = [
            "$top": ["root": .uid(1)], "$objects": ["$null", [], [:], .data(Data([1, 2, 3])), true],
            "$version": 100_000,
        ]
        let text = String(decoding: try XMLPropertyListWriter().write(value), as: UTF8.self)
        #expect(
            text == header + """
                <dict>
                \t<key>$objects</key>
                \t<array>
                \t\t<string>$null</string>
                \t\t<array/>
                \t\t<dict/>
                \t\t<data>
                \t\tAQID
                \t\t</data>
                \t\t<true/>
                \t</array>
                \t<key>$top</key>
                \t<dict>
                \t\t<key>root</key>
                \t\t<dict>
                \t\t\t<key>CF$UID</key>
                \t\t\t<integer>1</integer>
                \t\t</dict>
                \t</dict>
                \t<key>$version</key>
                \t<integer>100000</integer>
                </dict>
                </plist>

                """)
    }

    @Test("only <, > and & are escaped")
    func escaping() throws {
        let text = String(decoding: try XMLPropertyListWriter().write(["<a & b>": "\"q\" 'a' <&>"]), as: UTF8.self)
        #expect(text.contains("<key>&lt;a &amp; b&gt;</key>"))
        #expect(text.contains("<string>\"q\" 'a' &lt;&amp;&gt;</string>"))
    }

    @Test("reals, integers and dates are written as Core Foundation writes them")
    func scalarText() throws {
        let value: PropertyListValue = [
            0.1, 100.0, 1e17, 0.0, -0.0, .real(.nan), .real(.infinity), .real(-.infinity), .float(0.1),
            .integer(.min), .unsignedInteger(.max),
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -0.5)),
            .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000)),  // 0001-01-01
            .date(Date(timeIntervalSinceReferenceDate: -63_113_990_400)),  // 0000-12-31
            .date(Date(timeIntervalSinceReferenceDate: -63_177_062_400)),  // -001-01-01
            .date(Date(timeIntervalSinceReferenceDate: 252_423_993_599)),  // 9999-12-31T23:59:59
            .date(Date(timeIntervalSinceReferenceDate: 252_423_993_600)),  // 10000-01-01
            .date(Date(timeIntervalSinceReferenceDate: 36_547_200)),  // 2002-02-28
            .date(Date(timeIntervalSinceReferenceDate: 99_792_000)),  // 2004-03-01
        ]
        let lines = String(decoding: try XMLPropertyListWriter().write(value), as: UTF8.self)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let expected = [
            "<real>0.10000000000000001</real>", "<real>100</real>", "<real>1e+17</real>", "<real>0.0</real>",
            "<real>-0.0</real>", "<real>nan</real>", "<real>+infinity</real>", "<real>-infinity</real>",
            "<real>0.10000000149011612</real>", "<integer>-9223372036854775808</integer>",
            "<integer>18446744073709551615</integer>", "<date>2001-01-01T00:00:00Z</date>",
            "<date>2000-12-31T23:59:59Z</date>", "<date>0001-01-01T00:00:00Z</date>",
            "<date>0000-12-31T00:00:00Z</date>", "<date>-001-01-01T00:00:00Z</date>",
            "<date>9999-12-31T23:59:59Z</date>", "<date>10000-01-01T00:00:00Z</date>",
            "<date>2002-02-28T00:00:00Z</date>", "<date>2004-03-01T00:00:00Z</date>",
        ]
        #expect(Array(lines[4 ..< 4 + expected.count]) == expected)
        #expect(sameIgnoringOrder(try XMLPropertyListReader().read(XMLPropertyListWriter().write(value)), [
            0.1, 100.0, 1e17, 0.0, -0.0, .real(.nan), .real(.infinity), .real(-.infinity), .real(Double(Float(0.1))),
            .integer(.min), .unsignedInteger(.max),
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -1)),
            .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000)),
            .date(Date(timeIntervalSinceReferenceDate: -63_113_990_400)),
            .date(Date(timeIntervalSinceReferenceDate: -63_177_062_400)),
            .date(Date(timeIntervalSinceReferenceDate: 252_423_993_599)),
            .date(Date(timeIntervalSinceReferenceDate: 252_423_993_600)),
            .date(Date(timeIntervalSinceReferenceDate: 36_547_200)),
            .date(Date(timeIntervalSinceReferenceDate: 99_792_000)),
        ]))
    }

    @Test("base64 lines shorten with indentation, as Core Foundation's do")
    func base64Lines() throws {
        let data = Data((0 ..< 200).map { UInt8($0) })
        var value: PropertyListValue = .data(data)
        for level in 0 ... 10 {
            let text = String(decoding: try XMLPropertyListWriter().write(value), as: UTF8.self)
            let lines = text.split(separator: "\n").filter { !$0.contains("<") }
            let indent = min(level, 8)
            #expect(lines.allSatisfy { $0.prefix { $0 == "\t" }.count == indent })
            #expect(lines.dropLast().allSatisfy { $0.count - indent == 76 - 8 * indent })
            #expect(try XMLPropertyListReader().read(XMLPropertyListWriter().write(value)) == value)
            value = [value]
        }
    }

    // MARK: Reading

    @Test("CF$UID dictionaries read as UIDs only when they hold just a non-negative integer")
    func uids() throws {
        #expect(try read(plist("<dict><key>CF$UID</key><integer>7</integer></dict>")) == .uid(7))
        #expect(try read(plist("<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>")) == .uid(.max))
        #expect(try read(plist("<dict><key>CF$UID</key><integer>-1</integer></dict>")) == ["CF$UID": -1])
        #expect(try read(plist("<dict><key>CF$UID</key><string>1</string></dict>")) == ["CF$UID": "1"])
        #expect(
            try read(plist("<dict><key>CF$UID</key><integer>1</integer><key>x</key><true/></dict>"))
                == ["CF$UID": 1, "x": true])
    }

    @Test("markup conveniences: entities, CDATA, comments, attributes, empty elements, no <plist> root")
    func markup() throws {
        #expect(try read(plist("<string>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;</string>")) == "<>&\"'AB😀")
        #expect(try read(plist("<string>a<![CDATA[<b>&amp;]]>c</string>")) == "a<b>&amp;c")
        #expect(try read(plist("<!-- c --><array><!-- c --><string>a<!-- c -->b</string></array><!-- c -->")) == ["ab"])
        #expect(try read(plist("<string a='1' b = \"x>y\" >v</string >")) == "v")
        #expect(try read(plist("<array><string/><data/></array>")) == ["", .data(Data())])
        #expect(try read(plist("<dict><key/><true></true></dict>")) == ["": true])
        #expect(try read(plist("<array><false>  </false></array>")) == [false])
        #expect(try read("<array><integer>1</integer></array>") == [1])
        #expect(try read("\u{FEFF}<?xml version=\"1.0\"?>\n<string>bom</string>\n<!-- trailing -->\n") == "bom")
        #expect(try read("<?xml version=\"1.0\"?><!DOCTYPE plist [ <!ENTITY x \"]>\"> ]><plist><true/></plist>") == true)
        #expect(try read(plist("<string>line\r\nbreak\u{1}</string>")) == "line\r\nbreak\u{1}")
    }

    @Test("integers: signs, hexadecimal and the full 64-bit ranges")
    func integers() throws {
        let cases: [(String, PropertyListValue)] = [
            ("0", 0), ("+7", 7), ("-0", 0), ("0x1F", 31), ("0XfF", 255), ("-0x10", -16), ("007", 7),
            ("-9223372036854775808", .integer(.min)), ("9223372036854775807", .integer(.max)),
            ("9223372036854775808", .unsignedInteger(1 << 63)), ("18446744073709551615", .unsignedInteger(.max)),
            ("0xFFFFFFFFFFFFFFFF", .unsignedInteger(.max)),
        ]
        for (text, value) in cases {
            #expect(try read(plist("<integer>\(text)</integer>")) == value, "\(text)")
        }
    }

    @Test("reals: decimal forms and named specials")
    func reals() throws {
        let cases: [(String, Double)] = [
            ("1", 1), ("-2.5", -2.5), ("1e3", 1000), ("1E-3", 0.001), (".5", 0.5), ("+3.", 3), ("1e400", .infinity),
            ("inf", .infinity), ("+Infinity", .infinity), ("-INF", -.infinity), ("-infinity", -.infinity),
        ]
        for (text, value) in cases {
            #expect(try read(plist("<real>\(text)</real>")) == .real(value), "\(text)")
        }
        #expect(try read(plist("<real>NaN</real>")).doubleValue?.isNaN == true)
        #expect(try read(plist("<real>-nan</real>")).doubleValue?.isNaN == true)
    }

    @Test("base64: white space anywhere, padding optional")
    func base64() throws {
        #expect(try read(plist("<data>AQ==</data>")) == .data(Data([1])))
        #expect(try read(plist("<data>AQ</data>")) == .data(Data([1])))
        #expect(try read(plist("<data>AQI=</data>")) == .data(Data([1, 2])))
        #expect(try read(plist("<data>AQI</data>")) == .data(Data([1, 2])))
        #expect(try read(plist("<data>\n\tAQ ID\r\n\tBA==\n</data>")) == .data(Data([1, 2, 3, 4])))
        #expect(try read(plist("<data>  </data>")) == .data(Data()))
        #expect(try read(plist("<data>+/+/</data>")) == .data(Data([0xFB, 0xFF, 0xBF])))
    }

    @Test("dates: leap days, negative years, long years")
    func dates() throws {
        #expect(try read(plist("<date>2004-02-29T12:00:00Z</date>")) == .date(Date(timeIntervalSinceReferenceDate: 99_748_800)))
        #expect(try read(plist("<date>2000-02-29T00:00:00Z</date>")) == .date(Date(timeIntervalSinceReferenceDate: -26_524_800)))
        #expect(try read(plist("<date>1970-01-01T00:00:00Z</date>")) == .date(Date(timeIntervalSince1970: 0)))
        #expect(try read(plist("<date>-001-01-01T00:00:00Z</date>")) == .date(Date(timeIntervalSinceReferenceDate: -63_177_062_400)))
        #expect(try read(plist("<date>10000-01-01T00:00:00Z</date>")) == .date(Date(timeIntervalSinceReferenceDate: 252_423_993_600)))
    }

    // MARK: Hostile and malformed input

    @Test("malformed documents", arguments: [
        "", "   ", "<", "<plist", "<plist>", "<plist></plist>", "<plist/>", "</plist>", "<plist><string>a</string>",
        "<plist><string>a</string></array>", "<plist><string>a</plist>", "<string>a</string><string>b</string>",
        "<array><string>a</string>", "<array>text</array>", "<array></dict>", "<dict></array>", "<dict><key>k</key></dict>",
        "<array><true/>junk<false/></array>", "<plist><true/><true/></plist>", "<string>a</string>trailing",
        "<string>a</strin>", "<string>a<b/></string>", "<string>a</string", "<string a></string>", "<string a=1></string>",
        "<string a=\"1></string>", "<string/ >", "< string/>", "<string", "<!-- open", "<?xml", "<!DOCTYPE plist",
        "<![CDATA[x]]>", "<string><![CDATA[x</string>", "plain text", "<true/ x>", "</ true>", "<array/ >",
        "<plist><!DOCTYPE plist><true/></plist>", "<dict><string>v</string></dict>", "<dict><key>a</key><key>b</key></dict>",
        "<array><key>k</key></array>", "<key>k</key>", "<plist><plist/></plist>", "<array><plist/></array>", "<array></ array>",
        "<true>x</true>", "<false><true/></false>", "<string></string ", "<dict><key>a</key><true/></dict></dict>",
        "<string>a</string x>", "<string \"x\">a</string>", "<string>abc", "<array></string></array>",
        "<dict><key>a</key></array></dict>", "<plist><array/>x</plist>",
    ])
    func malformed(_ text: String) {
        expectXMLError(.corruptPropertyList, text)
    }

    @Test("unknown elements", arguments: ["<set/>", "<foo>1</foo>", "<array><null/></array>", "<plist><Dict/></plist>", "<ns:string>a</ns:string>"])
    func unknownElements(_ text: String) {
        expectXMLError(.corruptPropertyList, text)
    }

    @Test("bad integers", arguments: [
        "", " 1", "1 ", "1.5", "abc", "0x", "0xG", "+-1", "--1", "1e3", "99999999999999999999", "18446744073709551616",
        "-9223372036854775809", "-18446744073709551615", "0x10000000000000000", "١", "&#49;&#x;",
    ])
    func badIntegers(_ text: String) {
        expectXMLError(.corruptPropertyList, plist("<integer>\(text)</integer>"))
    }

    @Test("empty integer, real and date elements")
    func emptyScalars() {
        expectXMLError(.corruptPropertyList, plist("<integer/>"))
        expectXMLError(.corruptPropertyList, plist("<real/>"))
        expectXMLError(.corruptPropertyList, plist("<date/>"))
    }

    @Test("bad reals", arguments: ["", " 1", "1.2.3", "abc", "0x1p3", "nan(1)", "infinit", "1,5", "e", "--1", String(repeating: "1", count: 500)])
    func badReals(_ text: String) {
        expectXMLError(.corruptPropertyList, plist("<real>\(text)</real>"))
    }

    @Test("bad dates", arguments: [
        "", "2001-01-01", "2001-01-01T00:00:00", "2001-01-01T00:00:00+01:00", "2001-01-01 00:00:00Z", "2001-13-01T00:00:00Z",
        "2001-00-01T00:00:00Z", "2001-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2001-04-31T00:00:00Z", "2001-01-00T00:00:00Z",
        "2001-01-01T24:00:00Z", "2001-01-01T00:60:00Z", "2001-01-01T00:00:60Z", "2001-1-01T00:00:00Z", "20a1-01-01T00:00:00Z",
        "1234567890-01-01T00:00:00Z", "--2001-01-01T00:00:00Z", "-2001-01-01T00:00:00.5Z", " 2001-01-01T00:00:00Z",
    ])
    func badDates(_ text: String) {
        expectXMLError(.corruptPropertyList, plist("<date>\(text)</date>"))
    }

    @Test("bad base64", arguments: ["A", "AQ=", "AQ===", "A===", "AQ==AQ==", "AB=C", "*AAA", "AQ\u{0}=", "AQ-_", "Zm9v!", "=AAA"])
    func badBase64(_ text: String) {
        expectXMLError(.corruptPropertyList, plist("<data>\(text)</data>"))
    }

    @Test("bad entities and character references", arguments: [
        "&foo;", "&lt", "&;", "&#;", "&#x;", "&#xD800;", "&#x110000;", "&#99999999999;", "&#-1;", "&#x+1;", "& amp;",
        "&amp", "&averyveryverylongname;",
    ])
    func badReferences(_ text: String) {
        expectXMLError(.corruptPropertyList, plist("<string>\(text)</string>"))
    }

    @Test("entities declared in the DOCTYPE are never expanded (no billion laughs, no external entities)")
    func noEntityExpansion() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
              <!ENTITY xxe SYSTEM "file:///etc/passwd">
            ]>
            <plist><string>&lol3;</string></plist>
            """
        expectXMLError(.corruptPropertyList, laughs)
        expectXMLError(.corruptPropertyList, laughs.replacingOccurrences(of: "&lol3;", with: "&xxe;"))
    }

    @Test("invalid UTF-8 in text")
    func invalidUTF8() {
        for bad: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80]] {
            let bytes = Array(plist("<string>").utf8) + bad + Array("</string></plist>".utf8)
            expectPropertyListError(.corruptPropertyList) { _ = try XMLPropertyListReader().read(bytes) }
            let key = Array("<dict><key>".utf8) + bad + Array("</key><true/></dict>".utf8)
            expectPropertyListError(.corruptPropertyList) { _ = try XMLPropertyListReader().read(key) }
        }
    }

    @Test("UTF-16 and UTF-32 documents are not supported")
    func otherEncodings() {
        let utf16 = Array("<plist><true/></plist>".utf16)
        let bigEndian: [UInt8] = [0xFE, 0xFF] + utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let littleEndian: [UInt8] = [0xFF, 0xFE] + utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let noMark: [UInt8] = utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        for bytes in [bigEndian, littleEndian, noMark] {
            expectPropertyListError(.unsupportedFormat) { _ = try XMLPropertyListReader().read(bytes) }
        }
    }

    @Test("nesting deeper than 512 levels", arguments: ["array", "dict"])
    func deepNesting(_ element: String) throws {
        func document(_ depth: Int) -> String {
            let open = element == "array" ? "<array>" : "<dict><key>k</key>"
            let close = element == "array" ? "</array>" : "</dict>"
            let innermost = element == "array" ? "<array/>" : "<dict/>"
            return String(repeating: open, count: depth - 1) + innermost + String(repeating: close, count: depth - 1)
        }
        #expect(throws: Never.self) { try read(document(512)) }
        expectXMLError(.nestingTooDeep, document(513))
        expectXMLError(.nestingTooDeep, String(repeating: "<\(element)>", count: 100_000))
        var shallow = XMLPropertyListReader()
        shallow.maximumDepth = 2
        #expect(throws: Never.self) { try shallow.read(Array(document(2).utf8)) }
        expectPropertyListError(.nestingTooDeep) { _ = try shallow.read(Array(document(3).utf8)) }
    }

    @Test("errors carry the byte offset and line")
    func errorLocation() throws {
        let text = "<plist>\n<array>\n<integer>x</integer>\n</array>\n</plist>"
        do {
            _ = try read(text)
            Issue.record("accepted")
        } catch let error as PropertyListError {
            #expect(error.offset == 16)
            #expect(error.message.contains("line 3"))
        }
    }

    // MARK: Damage in bulk

    static let sample: [UInt8] = {
        let value: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000,
            "$objects": ["$null", ["$class": .uid(2), "name": "Zoë & <co>", "n": -7, "r": 0.25], .data(Data([1, 2, 3, 4])),
                         .date(Date(timeIntervalSinceReferenceDate: 3)), true, false, ["$classes": ["A", "NSObject"]]],
            "$top": ["root": .uid(1)],
        ]
        return (try? XMLPropertyListWriter().write(value)) ?? []
    }()

    @Test("truncation at every byte throws")
    func truncationAtEveryByte() throws {
        let sample = Self.sample
        #expect(try XMLPropertyListReader().read(sample).dictionaryValue?.count == 4)
        // The document is complete once </plist> is read; only its final newline may go.
        for length in 0 ..< sample.count - 1 {
            do {
                _ = try XMLPropertyListReader().read(Array(sample[..<length]))
                Issue.record("a document truncated to \(length) bytes was accepted")
            } catch is PropertyListError {
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("thousands of random mutations throw or succeed, never crash or hang")
    func randomMutations() {
        var generator = SeededGenerator(seed: 0xC0FF_EE00_0000_0002)
        let sample = Self.sample
        let alphabet = Array("<>/&;=\"'![]?-#x0123456789 \n\tabcdefgiklnoprstuyCDAT$".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        var accepted = 0
        var rejected = 0
        for round in 0 ..< 4000 {
            var mutant = sample
            for _ in 0 ..< 1 + Int(generator.next() % 4) {
                let index = Int(generator.next() % UInt64(mutant.count))
                let replacement = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 4 {
                case 0: mutant[index] = replacement
                case 1: mutant.insert(replacement, at: index)
                case 2: mutant.remove(at: index)
                default: mutant[index] ^= UInt8(truncatingIfNeeded: 1 << (generator.next() % 8))
                }
            }
            do {
                _ = try XMLPropertyListReader().read(mutant)
                accepted += 1
            } catch is PropertyListError {
                rejected += 1
            } catch {
                Issue.record("round \(round): unexpected error \(error)")
            }
        }
        #expect(accepted + rejected == 4000)
        #expect(rejected > 0 && accepted > 0)
    }
}
