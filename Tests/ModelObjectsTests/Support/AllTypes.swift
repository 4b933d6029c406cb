import Foundation
import ModelObjects

/// A model with one attribute of every type key-value coding boxes and converts.
final class AllTypes: ModelObject {
    @Attribute var int = 0
    @Attribute var int8: Int8 = 0
    @Attribute var int16: Int16 = 0
    @Attribute var int32: Int32 = 0
    @Attribute var int64: Int64 = 0
    @Attribute var uint: UInt = 0
    @Attribute var uint8: UInt8 = 0
    @Attribute var uint16: UInt16 = 0
    @Attribute var uint32: UInt32 = 0
    @Attribute var uint64: UInt64 = 0
    @Attribute var double = 0.0
    @Attribute var float: Float = 0
    @Attribute var cgFloat: CGFloat = 0
    @Attribute var bool = false
    @Attribute var decimal: Decimal = 0
    @Attribute var string = ""
    @Attribute var date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var data = Data()
    @Attribute var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Attribute var url = URL(fileURLWithPath: "/")
    @Attribute var optionalInt: Int? = nil
    @Attribute var optionalDouble: Double? = nil
    @Attribute var optionalString: String? = nil
    @Attribute var optionalDate: Date? = nil
    @Attribute var point = CGPoint.zero
    @Attribute var size = CGSize.zero
    @Attribute var rect = CGRect.zero
    @Attribute var range = NSRange(location: 0, length: 0)
    /// Array and set attributes, which mutable collection proxies also edit.
    @Attribute var strings: [String] = []
    @Attribute var doubles: [Double] = []
    @Attribute var tags: Set<String> = []
    /// Dictionary attributes, which key paths read into.
    @Attribute var info: [String: Any] = [:]
    @Attribute var records: [[String: Any]] = []

    /// A computed property that forwards to an attribute: not itself a declared key.
    var forwardedString: String {
        get { string }
        set { string = newValue }
    }

    /// A plain stored property, not declared with a property wrapper.
    var plainCounter = 0
}
