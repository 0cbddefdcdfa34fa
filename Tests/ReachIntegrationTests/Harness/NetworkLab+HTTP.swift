import Foundation

extension NetworkLab {
    /// An HTTP/1.1 server on `address` port 8080 with well-behaved and hostile paths, for
    /// probes: `/generate_204` answers 204 at once, the others are slow, endless, garbage or
    /// silent (Helpers/hostile-http-server.py lists them). It logs `served PATH` for each request.
    func startHostileHTTPServer(in namespace: Namespace, address: String) throws -> BackgroundProcess {
        let server = try launchHelper("hostile-http-server.py", [address], in: namespace, label: "hostile-http")
        try server.waitUntilReady(marker: "listening")
        return server
    }
}
