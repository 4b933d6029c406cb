import Foundation

/// The textual encodings of XML property-list scalars, as Core Foundation writes them:
/// ISO 8601 dates in UTC to the second, base64 data in indented lines, `%.17g` reals.
enum XMLPropertyListText {
    // MARK: Dates

    /// Days from 1970-01-01 to 2001-01-01, Foundation's reference date.
    private static let referenceDay: Int64 = 11_323

    /// Writes a date as `YYYY-MM-DDTHH:MM:SSZ` in the proleptic Gregorian calendar, rounding
    /// down to the second; years below 0 are written as C's `%04d` does (`-001`).
    static func format(_ date: Date) -> String? {
        let interval = date.timeIntervalSinceReferenceDate.rounded(.down)
        guard interval.isFinite, abs(interval) < 1e15, let seconds = Int64(exactly: interval) else {
            return nil
        }
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days + referenceDay)
        let hour = secondOfDay / 3_600
        let minute = secondOfDay % 3_600 / 60
        let second = secondOfDay % 60
        let yearText = year < 0 ? "-" + padded(-year, 3) : padded(year, 4)
        return yearText + "-" + padded(month, 2) + "-" + padded(day, 2) + "T" + padded(hour, 2) + ":"
            + padded(minute, 2) + ":" + padded(second, 2) + "Z"
    }

    /// Reads a date written as `[-]Y…Y-MM-DDTHH:MM:SSZ` (UTC, 1 to 9 year digits); nil if the
    /// text is not such a date or a field is out of range.
    static func parseDate(_ text: some Collection<UInt8>) -> Date? {
        var bytes = Array(text)[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        let yearDigits = bytes.prefix { (0x30 ... 0x39).contains($0) }
        guard (1 ... 9).contains(yearDigits.count) else { return nil }
        let year = Int64(yearDigits.reduce(0) { $0 * 10 + Int($1 - 0x30) }) * (negative ? -1 : 1)
        bytes = bytes.dropFirst(yearDigits.count)
        // The rest is fixed: -MM-DDTHH:MM:SSZ
        let rest = Array(bytes)
        let pattern = Array("-00-00T00:00:00Z".utf8)
        guard rest.count == pattern.count else { return nil }
        for (byte, expected) in zip(rest, pattern) {
            if expected == UInt8(ascii: "0") {
                guard (0x30 ... 0x39).contains(byte) else { return nil }
            } else if byte != expected {
                return nil
            }
        }
        func field(_ start: Int) -> Int64 { Int64(rest[start] - 0x30) * 10 + Int64(rest[start + 1] - 0x30) }
        let month = field(1)
        let day = field(4)
        let hour = field(7)
        let minute = field(10)
        let second = field(13)
        guard (1 ... 12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = days(fromCivil: year, month, day) - referenceDay
        let interval = Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
        return Date(timeIntervalSinceReferenceDate: interval)
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = a / b
        var remainder = a % b
        if remainder < 0 {
            quotient -= 1
            remainder += b
        }
        return (quotient, remainder)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01.
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    // MARK: Reals

    /// Writes a real as Core Foundation does: `%.17g`, `nan`, `+infinity`, `-infinity`, and
    /// `0.0` for zero (`-0.0` for negative zero, which Core Foundation writes as `0.0`).
    static func format(_ real: Double) -> String {
        if real.isNaN { return "nan" }
        if real.isInfinite { return real < 0 ? "-infinity" : "+infinity" }
        if real == 0 { return real.sign == .minus ? "-0.0" : "0.0" }
        return String(format: "%.17g", real)
    }

    /// Reads a real: a decimal number, or `nan`, `inf` or `infinity` with an optional sign (any
    /// case); nil for anything else.
    static func parseReal(_ text: some Collection<UInt8>) -> Double? {
        guard !text.isEmpty, text.count <= 400 else { return nil }
        let allowed = text.allSatisfy {
            (0x30 ... 0x39).contains($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
        }
        let string = String(decoding: text, as: UTF8.self)
        if allowed { return Double(string) }
        var name = string.lowercased()[...]
        var negative = false
        if name.first == "+" || name.first == "-" {
            negative = name.first == "-"
            name = name.dropFirst()
        }
        switch name {
        case "nan": return negative ? -Double.nan : .nan
        case "inf", "infinity": return negative ? -Double.infinity : .infinity
        default: return nil
        }
    }

    // MARK: Integers

    /// Reads an integer: an optional sign, an optional `0x` for hexadecimal, then digits, in
    /// the range `Int64.min ... UInt64.max`; nil for anything else.
    static func parseInteger(_ text: some Collection<UInt8>) -> PropertyListValue? {
        var digits = Array(text)[...]
        var negative = false
        if digits.first == UInt8(ascii: "-") || digits.first == UInt8(ascii: "+") {
            negative = digits.first == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        var radix: UInt64 = 10
        if digits.count > 2, digits.first == UInt8(ascii: "0"),
            digits.dropFirst().first == UInt8(ascii: "x") || digits.dropFirst().first == UInt8(ascii: "X")
        {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case 0x30 ... 0x39: digit = UInt64(byte - 0x30)
            case 0x61 ... 0x66 where radix == 16: digit = UInt64(byte - 0x61 + 10)
            case 0x41 ... 0x46 where radix == 16: digit = UInt64(byte - 0x41 + 10)
            default: return nil
            }
            let (product, productOverflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, sumOverflow) = product.addingReportingOverflow(digit)
            guard !productOverflow, !sumOverflow else { return nil }
            magnitude = sum
        }
        if !negative { return .integer(unsigned: magnitude) }
        if magnitude == 1 << 63 { return .integer(.min) }
        guard let positive = Int64(exactly: magnitude) else { return nil }
        return .integer(-positive)
    }

    // MARK: Base64

    private static let alphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends data in base64 as Core Foundation writes it in XML: lines of at most
    /// `76 - 8 × indent` characters, each preceded by `indent` tabs (indent capped at 8) and
    /// followed by a newline.
    static func appendBase64(_ data: Data, indent: Int, to output: inout [UInt8]) {
        let indent = min(indent, 8)
        let lineLength = 76 - 8 * indent
        var line = [UInt8]()
        line.reserveCapacity(lineLength + 4)
        func flush() {
            output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: indent))
            output.append(contentsOf: line)
            output.append(UInt8(ascii: "\n"))
            line.removeAll(keepingCapacity: true)
        }
        var previous: UInt8 = 0
        var index = 0
        for byte in data {
            switch index % 3 {
            case 0:
                line.append(alphabet[Int(byte >> 2)])
            case 1:
                line.append(alphabet[Int((previous & 0x03) << 4 | byte >> 4)])
            default:
                line.append(alphabet[Int((previous & 0x0F) << 2 | byte >> 6)])
                line.append(alphabet[Int(byte & 0x3F)])
            }
            previous = byte
            index += 1
            if line.count >= lineLength { flush() }
        }
        switch index % 3 {
        case 1:
            line.append(alphabet[Int((previous & 0x03) << 4)])
            line.append(contentsOf: "==".utf8)
        case 2:
            line.append(alphabet[Int((previous & 0x0F) << 2)])
            line.append(UInt8(ascii: "="))
        default:
            break
        }
        if !line.isEmpty { flush() }
    }

    /// Decodes base64, ignoring white space; padding may be omitted. Nil for a character
    /// outside the alphabet, misplaced or excess padding, or a dangling character.
    static func decodeBase64(_ text: some Collection<UInt8>) -> Data? {
        var output = [UInt8]()
        output.reserveCapacity(text.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var sextets = 0
        var padding = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case 0x41 ... 0x5A: value = UInt32(byte - 0x41)
            case 0x61 ... 0x7A: value = UInt32(byte - 0x61 + 26)
            case 0x30 ... 0x39: value = UInt32(byte - 0x30 + 52)
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "="):
                padding += 1
                guard padding <= 2 else { return nil }
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }  // data after padding
            accumulator = accumulator << 6 | value
            sextets += 1
            if sextets == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                sextets = 0
            }
        }
        switch sextets {
        case 0:
            guard padding == 0 else { return nil }
        case 2:
            guard padding == 0 || padding == 2 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard padding == 0 || padding == 1 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            return nil
        }
        return Data(output)
    }
}
