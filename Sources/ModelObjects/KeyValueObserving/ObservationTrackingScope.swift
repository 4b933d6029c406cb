#if os(Linux) && canImport(Glibc)
import Glibc
#endif
import Observation

/// Tells whether the current thread is inside a `withObservationTracking` scope, at the cost of
/// a thread-local load, so that every model class can register its typed reads with Observation
/// and objects read outside scopes pay almost nothing for it.
///
/// Observation keeps the scope in a thread-local pointer to the scope's access list, nil outside
/// scopes (`_ThreadLocal.value`, read by `_swift_observation_tls_get`). The runtime does not
/// export that function, so on Linux (glibc) this reads the pointer the way the runtime's own
/// code does: `__tls_get_addr` with libswiftObservation's TLS module ID and offset 0 (the
/// module's only thread-local is that pointer, followed by its initialized flag). That layout
/// is the toolchain's and may change, so it is checked once, before it is relied on: the value
/// must be non-nil and new inside a scope of our own, another inside a nested scope, and back
/// to what it was after. Where anything is missing (another platform, a statically linked
/// runtime, another layout) ``reader`` is nil and callers fall back to
/// ``ObservationTrackingProbe``, which finds the same answer through a registrar's `access`.
@usableFromInline
package enum ObservationTrackingScope {
    /// Reads the current thread's tracking pointer; nil when it cannot be read directly.
    static let reader: ThreadLocalPointerReader? = ThreadLocalPointerReader.observationTracking()

    /// False when the current thread is certainly outside every tracking scope; true inside one,
    /// and always true where the scope cannot be read directly (the caller then probes).
    ///
    /// Typed getters call it before anything else: outside scopes it is their only cost.
    @usableFromInline
    package static var mayBeActive: Bool {
        guard let reader else { return true }
        return reader.read() != nil
    }

    /// Whether the current thread is inside a tracking scope: true, false, or nil when only a
    /// probe can tell.
    static var isActive: Bool? {
        reader.map { $0.read() != nil }
    }
}

/// A pointer-sized thread-local of another loaded module, read through `__tls_get_addr`.
struct ThreadLocalPointerReader: Sendable {
    typealias GetAddress = @convention(c) @Sendable (UnsafeRawPointer) -> UnsafeMutableRawPointer?

    private let getAddress: GetAddress
    /// The module's TLS module ID.
    private let moduleID: UInt

    /// The current thread's value of the pointer (at offset 0 of the module's TLS block).
    @inline(__always)
    func read() -> UnsafeMutableRawPointer? {
        // glibc's `tls_index`: the module ID and the offset in the module's block.
        var index = (moduleID, UInt(0))
        return withUnsafePointer(to: &index) {
            getAddress(UnsafeRawPointer($0))?.load(as: UnsafeMutableRawPointer?.self)
        }
    }

    /// The reader of Observation's tracking pointer, once it is checked to behave as one.
    static func observationTracking() -> ThreadLocalPointerReader? {
        #if os(Linux) && canImport(Glibc)
        typealias DLInfo = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Int32
        // RTLD_DI_TLS_MODID in <dlfcn.h>: the module's TLS module ID, 0 when it has no TLS.
        let tlsModuleIDRequest: Int32 = 9
        guard let library = dlopen("libswiftObservation.so", RTLD_NOLOAD | RTLD_LAZY) else { return nil }
        defer { dlclose(library) }
        guard let dlinfoSymbol = dlsym(nil, "dlinfo"), let getAddressSymbol = dlsym(nil, "__tls_get_addr")
        else { return nil }
        let dlinfo = unsafeBitCast(dlinfoSymbol, to: DLInfo.self)
        var moduleID: UInt = 0
        guard dlinfo(library, tlsModuleIDRequest, &moduleID) == 0, moduleID != 0 else { return nil }
        let reader = ThreadLocalPointerReader(
            getAddress: unsafeBitCast(getAddressSymbol, to: GetAddress.self), moduleID: moduleID)
        return reader.behavesAsTrackingPointer() ? reader : nil
        #else
        return nil
        #endif
    }

    /// Whether the value changes as Observation's tracking pointer does across scopes.
    private func behavesAsTrackingPointer() -> Bool {
        let outside = read()
        var inside: UnsafeMutableRawPointer?
        var nested: UnsafeMutableRawPointer?
        var restored = false
        // Nothing is read inside, so neither scope installs an onChange.
        withObservationTracking {
            inside = read()
            withObservationTracking { nested = read() } onChange: {}
            restored = read() == inside
        } onChange: {}
        return inside != nil && inside != outside && nested != nil && nested != inside && restored
            && read() == outside
    }
}
