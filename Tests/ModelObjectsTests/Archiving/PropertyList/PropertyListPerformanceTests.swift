import Foundation
import ModelObjects
import Testing

/// Timing of a keyed-archive-shaped plist: 10,000 archived objects, about 60,000 values.
/// The bounds are loose enough for debug builds on a busy machine; they catch quadratic
/// behaviour, not small regressions. Run `swift test -c release --filter PropertyListPerformance`
/// for the real figures (printed).
@Suite("Property lists: performance")
struct PropertyListPerformanceTests {
    static func archive(objects count: Int) -> PropertyListValue {
        var objects: [PropertyListValue] = ["$null"]
        objects.reserveCapacity(count + 3)
        for index in 0 ..< count {
            objects.append([
                "$class": .uid(UInt64(count + 1)),
                "name": .string("Employee \(index)"),
                "salary": .integer(Int64(50_000 + index % 977 * 13)),
                "manager": .uid(UInt64(1 + index / 10)),
                "ratio": .real(Double(index % 100) / 8),
            ])
        }
        objects.append(["$classname": "Employee", "$classes": ["Employee", "NSObject"]])
        return [
            "$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": ["root": .uid(1)], "$objects": .array(objects),
        ]
    }

    static func valueCount(_ value: PropertyListValue) -> Int {
        switch value {
        case .array(let elements): 1 + elements.reduce(0) { $0 + valueCount($1) }
        case .dictionary(let dictionary): 1 + dictionary.values.reduce(0) { $0 + valueCount($1) }
        default: 1
        }
    }

    /// The best of `runs` timings, in milliseconds.
    static func best(of runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var best = Duration.seconds(1_000)
        for _ in 0 ..< runs {
            let start = ContinuousClock.now
            try body()
            best = min(best, ContinuousClock.now - start)
        }
        let (seconds, attoseconds) = best.components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    @Test("writing and reading 10,000 archived objects is fast and linear")
    func archiveTiming() throws {
        let value = Self.archive(objects: 10_000)
        let values = Self.valueCount(value)
        #expect(values > 60_000)
        var binary = [UInt8]()
        let write = try Self.best(of: 5) { binary = try BinaryPropertyListWriter().write(value) }
        // Each result is freed before the next run starts, outside the timing.
        var read = PropertyListValue.bool(false)
        var parse = Double.infinity
        for _ in 0 ..< 5 {
            read = .bool(false)
            parse = min(parse, try Self.best(of: 1) { read = try BinaryPropertyListReader().read(binary) })
        }
        #expect(read == value)
        var xml = [UInt8]()
        let writeXML = try Self.best(of: 3) { xml = try XMLPropertyListWriter().write(value) }
        let parseXML = try Self.best(of: 3) { read = try XMLPropertyListReader().read(xml) }
        #expect(sameIgnoringOrder(read, value))
        let report = String(
            format: "%d values: binary %d bytes, write %.2f ms, read %.2f ms; XML %d bytes, write %.2f ms, read %.2f ms",
            values, binary.count, write, parse, xml.count, writeXML, parseXML)
        print("PropertyListPerformance:", report)
        #expect(write < 2_000 && parse < 2_000 && writeXML < 5_000 && parseXML < 5_000, "\(report)")

        // Linear: ten times the objects takes nowhere near a hundred times as long.
        let large = Self.archive(objects: 100_000)
        var largeBinary = [UInt8]()
        let largeWrite = try Self.best(of: 1) { largeBinary = try BinaryPropertyListWriter().write(large) }
        let largeRead = try Self.best(of: 1) { _ = try BinaryPropertyListReader().read(largeBinary) }
        print(String(format: "PropertyListPerformance: ×10 objects: write %.2f ms, read %.2f ms", largeWrite, largeRead))
        #expect(largeWrite < 40 * write + 50)
        #expect(largeRead < 40 * parse + 50)
    }
}
