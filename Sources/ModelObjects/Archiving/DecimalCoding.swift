import Foundation

/// `NSDecimalNumber`'s archived parts: a 128-bit mantissa as eight 16-bit words (least
/// significant first), a base-10 exponent and a sign. Built from `Decimal`'s public API, since
/// its stored fields are not public on every platform.
struct DecimalParts: Equatable {
    var mantissa: [UInt16]
    var exponent: Int
    var isNegative: Bool

    /// The number of significant words (`NS.length`).
    var length: Int { (mantissa.lastIndex { $0 != 0 } ?? -1) + 1 }

    init(mantissa: [UInt16], exponent: Int, isNegative: Bool) {
        self.mantissa = mantissa
        self.exponent = exponent
        self.isNegative = isNegative
    }

    init(_ decimal: Decimal) {
        isNegative = decimal < 0
        let magnitude = decimal.magnitude
        exponent = magnitude.isZero ? 0 : magnitude.exponent
        var digits = Array((magnitude.isZero ? "0" : "\(magnitude.significand)").utf8)
        // Converts the decimal digit string to base 65536 by repeated division.
        var words: [UInt16] = []
        while !(digits.isEmpty || digits == [UInt8(ascii: "0")]) && words.count < 8 {
            var remainder = 0
            var quotient: [UInt8] = []
            for digit in digits {
                let value = remainder * 10 + Int(digit - UInt8(ascii: "0"))
                let q = value / 65_536
                remainder = value % 65_536
                if !(quotient.isEmpty && q == 0) { quotient.append(UInt8(ascii: "0") + UInt8(q)) }
            }
            words.append(UInt16(remainder))
            digits = quotient
        }
        mantissa = words + Array(repeating: 0, count: 8 - words.count)
    }

    var decimal: Decimal {
        var significand = Decimal(0)
        for word in mantissa.reversed() {
            significand = significand * 65_536 + Decimal(Int(word))
        }
        return Decimal(sign: isNegative ? .minus : .plus, exponent: exponent, significand: significand)
    }
}
