/// A counted set of one element type given where another is declared (a decoded
/// `NSCountedSet` is a `CountedSet<AnyHashable>`) converts member by member, keeping the
/// counts; a member that does not convert fails the whole conversion.
extension CountedSet: KeyValueConvertible {
    static func convertedKeyValue(from value: Any) -> CountedSet? {
        guard let other = value as? any ArchivableCountedSet else { return nil }
        var converted = CountedSet()
        var fits = true
        other.forEachMemberAndCount { member, count in
            guard fits else { return }
            let base = (member as? AnyHashable)?.base ?? member
            guard let element = convertKeyValue(base, to: Element.self) else {
                fits = false
                return
            }
            converted.insert(element, count: count)
        }
        return fits ? converted : nil
    }
}
