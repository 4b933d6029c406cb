import Foundation
import ModelObjects
import SampleModels

/// The root of a three-level class chain, to test key-table inheritance.
class Vehicle: ModelObject {
    @Attribute var wheels = 4
    @Attribute var name = ""
}

/// The middle of the chain.
class Car: Vehicle {
    @Attribute var brand = ""
    @Relationship var owner: Employee?
}

/// The leaf of the chain: adds an attribute and a derived key that reads inherited keys.
final class SportsCar: Car {
    @Attribute var topSpeed = 0.0
    @Derived("brand", "topSpeed", compute: { (car: SportsCar) in "\(car.brand) \(Int(car.topSpeed))" })
    var badge: String
}

/// A sibling of `SportsCar`, whose keys must not leak into it.
final class Truck: Car {
    @Attribute var payload = 0.0
}
