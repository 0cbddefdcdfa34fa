#if canImport(Glibc)
import Glibc
#endif

/// A detached pthread running one closure: no Dispatch, no Swift concurrency, so an idle
/// reach has no runtime worker threads that wake on their own.
public enum DetachedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `run` on a new thread, which frees what the closure holds when it returns.
    public static func start(_ run: @escaping () -> Void) throws(SystemCallError) {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let failure = System.startThread(
            &thread,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        if let failure {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemCallError("pthread_create", failure)
        }
    }
}
