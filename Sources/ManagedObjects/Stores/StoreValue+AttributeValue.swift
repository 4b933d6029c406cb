import Foundation
import ModelObjects

extension StoreValue {
    /// A value of an attribute type as a store keeps it; nil when `value` is not of the type.
    init?(attributeValue value: Any, type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let integer = convertKeyValue(value, to: Int64.self) else { return nil }
            self = .integer(integer)
        case .double, .float:
            guard let double = convertKeyValue(value, to: Double.self) else { return nil }
            self = .double(double)
        case .decimal:
            guard let decimal = convertKeyValue(value, to: Decimal.self) else { return nil }
            self = .decimal(decimal)
        case .string:
            guard let string = value as? String else { return nil }
            self = .string(string)
        case .boolean:
            guard let bool = value as? Bool else { return nil }
            self = .boolean(bool)
        case .date:
            guard let date = value as? Date else { return nil }
            self = .date(date)
        case .binaryData:
            guard let data = value as? Data else { return nil }
            self = .data(data)
        case .uuid:
            guard let uuid = value as? UUID else { return nil }
            self = .uuid(uuid)
        case .uri:
            guard let url = value as? URL else { return nil }
            self = .uri(url)
        default:
            return nil
        }
    }
}
