import Foundation

// A `@Managed` property's accessors are inlined into its class, in the model's module, where
// `Value` is a concrete type; the reads and writes themselves live here. Called generically
// across the module boundary they would run unspecialized (metadata look-ups for every slot
// match, load and store: about 500 instructions more a read). So the inlined accessors pick,
// by their concrete type, a read or write this module compiled for that type, and only other
// types (to-one relationships, custom types) take the generic path.

extension Managed {
    /// Reads the stored value at `index` as `Value`, firing the fault first: through a read
    /// specialized in this module when `Value` is an attribute's own Swift type or its optional.
    @inlinable @inline(__always)
    static func managedValue(in object: ManagedObject, at index: Int) -> Value {
        if Value.self == Int16.self { return unsafeBitCast(object.managedInt16Value(at: index), to: Value.self) }
        if Value.self == Int16?.self { return unsafeBitCast(object.managedOptionalInt16Value(at: index), to: Value.self) }
        if Value.self == Int32.self { return unsafeBitCast(object.managedInt32Value(at: index), to: Value.self) }
        if Value.self == Int32?.self { return unsafeBitCast(object.managedOptionalInt32Value(at: index), to: Value.self) }
        if Value.self == Int64.self { return unsafeBitCast(object.managedInt64Value(at: index), to: Value.self) }
        if Value.self == Int64?.self { return unsafeBitCast(object.managedOptionalInt64Value(at: index), to: Value.self) }
        if Value.self == Int.self { return unsafeBitCast(object.managedIntValue(at: index), to: Value.self) }
        if Value.self == Int?.self { return unsafeBitCast(object.managedOptionalIntValue(at: index), to: Value.self) }
        if Value.self == Double.self { return unsafeBitCast(object.managedDoubleValue(at: index), to: Value.self) }
        if Value.self == Double?.self { return unsafeBitCast(object.managedOptionalDoubleValue(at: index), to: Value.self) }
        if Value.self == Float.self { return unsafeBitCast(object.managedFloatValue(at: index), to: Value.self) }
        if Value.self == Float?.self { return unsafeBitCast(object.managedOptionalFloatValue(at: index), to: Value.self) }
        if Value.self == Bool.self { return unsafeBitCast(object.managedBoolValue(at: index), to: Value.self) }
        if Value.self == Bool?.self { return unsafeBitCast(object.managedOptionalBoolValue(at: index), to: Value.self) }
        if Value.self == Date.self { return unsafeBitCast(object.managedDateValue(at: index), to: Value.self) }
        if Value.self == Date?.self { return unsafeBitCast(object.managedOptionalDateValue(at: index), to: Value.self) }
        if Value.self == Decimal.self { return unsafeBitCast(object.managedDecimalValue(at: index), to: Value.self) }
        if Value.self == Decimal?.self { return unsafeBitCast(object.managedOptionalDecimalValue(at: index), to: Value.self) }
        if Value.self == UUID.self { return unsafeBitCast(object.managedUUIDValue(at: index), to: Value.self) }
        if Value.self == UUID?.self { return unsafeBitCast(object.managedOptionalUUIDValue(at: index), to: Value.self) }
        if Value.self == String.self { return unsafeBitCast(object.managedStringValue(at: index), to: Value.self) }
        if Value.self == String?.self { return unsafeBitCast(object.managedOptionalStringValue(at: index), to: Value.self) }
        if Value.self == Data.self { return unsafeBitCast(object.managedDataValue(at: index), to: Value.self) }
        if Value.self == Data?.self { return unsafeBitCast(object.managedOptionalDataValue(at: index), to: Value.self) }
        if Value.self == URL.self { return unsafeBitCast(object.managedURLValue(at: index), to: Value.self) }
        if Value.self == URL?.self { return unsafeBitCast(object.managedOptionalURLValue(at: index), to: Value.self) }
        return readValue(in: object, at: index)
    }

    /// Writes `newValue` to the property at `index` as `setManagedValue(_:at:)` does: through a
    /// write specialized in this module when `Value` is an attribute's own Swift type or its
    /// optional.
    @inlinable @inline(__always)
    static func assignManagedValue(_ newValue: Value, to object: ManagedObject, at index: Int) {
        if Value.self == Int16.self { return object.setManagedInt16Value(unsafeBitCast(newValue, to: Int16.self), at: index) }
        if Value.self == Int16?.self { return object.setManagedOptionalInt16Value(unsafeBitCast(newValue, to: Int16?.self), at: index) }
        if Value.self == Int32.self { return object.setManagedInt32Value(unsafeBitCast(newValue, to: Int32.self), at: index) }
        if Value.self == Int32?.self { return object.setManagedOptionalInt32Value(unsafeBitCast(newValue, to: Int32?.self), at: index) }
        if Value.self == Int64.self { return object.setManagedInt64Value(unsafeBitCast(newValue, to: Int64.self), at: index) }
        if Value.self == Int64?.self { return object.setManagedOptionalInt64Value(unsafeBitCast(newValue, to: Int64?.self), at: index) }
        if Value.self == Int.self { return object.setManagedIntValue(unsafeBitCast(newValue, to: Int.self), at: index) }
        if Value.self == Int?.self { return object.setManagedOptionalIntValue(unsafeBitCast(newValue, to: Int?.self), at: index) }
        if Value.self == Double.self { return object.setManagedDoubleValue(unsafeBitCast(newValue, to: Double.self), at: index) }
        if Value.self == Double?.self { return object.setManagedOptionalDoubleValue(unsafeBitCast(newValue, to: Double?.self), at: index) }
        if Value.self == Float.self { return object.setManagedFloatValue(unsafeBitCast(newValue, to: Float.self), at: index) }
        if Value.self == Float?.self { return object.setManagedOptionalFloatValue(unsafeBitCast(newValue, to: Float?.self), at: index) }
        if Value.self == Bool.self { return object.setManagedBoolValue(unsafeBitCast(newValue, to: Bool.self), at: index) }
        if Value.self == Bool?.self { return object.setManagedOptionalBoolValue(unsafeBitCast(newValue, to: Bool?.self), at: index) }
        if Value.self == Date.self { return object.setManagedDateValue(unsafeBitCast(newValue, to: Date.self), at: index) }
        if Value.self == Date?.self { return object.setManagedOptionalDateValue(unsafeBitCast(newValue, to: Date?.self), at: index) }
        if Value.self == Decimal.self { return object.setManagedDecimalValue(unsafeBitCast(newValue, to: Decimal.self), at: index) }
        if Value.self == Decimal?.self { return object.setManagedOptionalDecimalValue(unsafeBitCast(newValue, to: Decimal?.self), at: index) }
        if Value.self == UUID.self { return object.setManagedUUIDValue(unsafeBitCast(newValue, to: UUID.self), at: index) }
        if Value.self == UUID?.self { return object.setManagedOptionalUUIDValue(unsafeBitCast(newValue, to: UUID?.self), at: index) }
        if Value.self == String.self { return object.setManagedStringValue(unsafeBitCast(newValue, to: String.self), at: index) }
        if Value.self == String?.self { return object.setManagedOptionalStringValue(unsafeBitCast(newValue, to: String?.self), at: index) }
        if Value.self == Data.self { return object.setManagedDataValue(unsafeBitCast(newValue, to: Data.self), at: index) }
        if Value.self == Data?.self { return object.setManagedOptionalDataValue(unsafeBitCast(newValue, to: Data?.self), at: index) }
        if Value.self == URL.self { return object.setManagedURLValue(unsafeBitCast(newValue, to: URL.self), at: index) }
        if Value.self == URL?.self { return object.setManagedOptionalURLValue(unsafeBitCast(newValue, to: URL?.self), at: index) }
        // A to-one relationship's object: the cast is resolved here, where `Value` is concrete
        // (`Destination?` unwraps and upcasts; types that are no class fail it at compile time),
        // instead of by the runtime in the generic setter.
        if let related = newValue as? ManagedObject, object.setManagedRelatedObject(related, at: index) { return }
        object.setManagedValue(newValue, at: index)
    }
}

extension ManagedObject {
    /// The `Int16` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedInt16Value(at index: Int) -> Int16 { Managed<Int16>.readValue(in: self, at: index) }
    /// The `Int16?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalInt16Value(at index: Int) -> Int16? { Managed<Int16?>.readValue(in: self, at: index) }
    /// The `Int32` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedInt32Value(at index: Int) -> Int32 { Managed<Int32>.readValue(in: self, at: index) }
    /// The `Int32?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalInt32Value(at index: Int) -> Int32? { Managed<Int32?>.readValue(in: self, at: index) }
    /// The `Int64` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedInt64Value(at index: Int) -> Int64 { Managed<Int64>.readValue(in: self, at: index) }
    /// The `Int64?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalInt64Value(at index: Int) -> Int64? { Managed<Int64?>.readValue(in: self, at: index) }
    /// The `Int` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedIntValue(at index: Int) -> Int { Managed<Int>.readValue(in: self, at: index) }
    /// The `Int?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalIntValue(at index: Int) -> Int? { Managed<Int?>.readValue(in: self, at: index) }
    /// The `Double` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedDoubleValue(at index: Int) -> Double { Managed<Double>.readValue(in: self, at: index) }
    /// The `Double?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalDoubleValue(at index: Int) -> Double? { Managed<Double?>.readValue(in: self, at: index) }
    /// The `Float` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedFloatValue(at index: Int) -> Float { Managed<Float>.readValue(in: self, at: index) }
    /// The `Float?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalFloatValue(at index: Int) -> Float? { Managed<Float?>.readValue(in: self, at: index) }
    /// The `Bool` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedBoolValue(at index: Int) -> Bool { Managed<Bool>.readValue(in: self, at: index) }
    /// The `Bool?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalBoolValue(at index: Int) -> Bool? { Managed<Bool?>.readValue(in: self, at: index) }
    /// The `Date` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedDateValue(at index: Int) -> Date { Managed<Date>.readValue(in: self, at: index) }
    /// The `Date?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalDateValue(at index: Int) -> Date? { Managed<Date?>.readValue(in: self, at: index) }
    /// The `Decimal` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedDecimalValue(at index: Int) -> Decimal { Managed<Decimal>.readValue(in: self, at: index) }
    /// The `Decimal?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalDecimalValue(at index: Int) -> Decimal? { Managed<Decimal?>.readValue(in: self, at: index) }
    /// The `UUID` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedUUIDValue(at index: Int) -> UUID { Managed<UUID>.readValue(in: self, at: index) }
    /// The `UUID?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalUUIDValue(at index: Int) -> UUID? { Managed<UUID?>.readValue(in: self, at: index) }
    /// The `String` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedStringValue(at index: Int) -> String { Managed<String>.readValue(in: self, at: index) }
    /// The `String?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalStringValue(at index: Int) -> String? { Managed<String?>.readValue(in: self, at: index) }
    /// The `Data` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedDataValue(at index: Int) -> Data { Managed<Data>.readValue(in: self, at: index) }
    /// The `Data?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalDataValue(at index: Int) -> Data? { Managed<Data?>.readValue(in: self, at: index) }
    /// The `URL` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedURLValue(at index: Int) -> URL { Managed<URL>.readValue(in: self, at: index) }
    /// The `URL?` attribute at `index`, read as `@Managed` reads it.
    @usableFromInline final func managedOptionalURLValue(at index: Int) -> URL? { Managed<URL?>.readValue(in: self, at: index) }
    /// Sets the `Int16` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedInt16Value(_ value: Int16, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Int16?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalInt16Value(_ value: Int16?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Int32` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedInt32Value(_ value: Int32, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Int32?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalInt32Value(_ value: Int32?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Int64` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedInt64Value(_ value: Int64, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Int64?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalInt64Value(_ value: Int64?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Int` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedIntValue(_ value: Int, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Int?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalIntValue(_ value: Int?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Double` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedDoubleValue(_ value: Double, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Double?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalDoubleValue(_ value: Double?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Float` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedFloatValue(_ value: Float, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Float?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalFloatValue(_ value: Float?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Bool` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedBoolValue(_ value: Bool, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Bool?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalBoolValue(_ value: Bool?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Date` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedDateValue(_ value: Date, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Date?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalDateValue(_ value: Date?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Decimal` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedDecimalValue(_ value: Decimal, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Decimal?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalDecimalValue(_ value: Decimal?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `UUID` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedUUIDValue(_ value: UUID, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `UUID?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalUUIDValue(_ value: UUID?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `String` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedStringValue(_ value: String, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `String?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalStringValue(_ value: String?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Data` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedDataValue(_ value: Data, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `Data?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalDataValue(_ value: Data?, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `URL` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedURLValue(_ value: URL, at index: Int) { setManagedValue(value, at: index) }
    /// Sets the `URL?` attribute at `index` as `@Managed` sets it.
    @usableFromInline final func setManagedOptionalURLValue(_ value: URL?, at index: Int) { setManagedValue(value, at: index) }
}
