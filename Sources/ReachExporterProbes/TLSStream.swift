import NIOCore
import NIOEmbedded
import NIOSSL
import NIOTLS
import ReachCore
import ReachSystem

/// TLS over a connection the probe opened itself: SwiftNIO's TLS handler (BoringSSL) in a
/// `SocketPipeline`, so that an https probe runs as the plain one does, on its thread and
/// within its deadline, with no event loop of its own.
public final class TLSStream: ByteStream {
    /// What the handshake showed of the server, for blackbox_exporter's TLS metrics
    /// (`prober/tls.go`).
    public struct Peer: Equatable, Sendable {
        /// "TLS 1.3", blackbox_exporter's getTLSVersion names.
        public var version: String
        /// The server's own certificate, DER.
        public var leaf: [UInt8]
        /// Each certificate of the chain BoringSSL built to a root: its DER and notAfter
        /// (Unix seconds), the leaf last. Empty when nothing was verified
        /// (insecure_skip_verify), as Go's VerifiedChains is then.
        public var verifiedChain: [Certificate]
        /// The certificates seen, the leaf's among them: what the earliest expiry is taken over.
        public var certificates: [Certificate]

        public init(version: String, leaf: [UInt8], verifiedChain: [Certificate], certificates: [Certificate]) {
            (self.version, self.leaf, self.verifiedChain, self.certificates) = (version, leaf, verifiedChain, certificates)
        }
    }

    public struct Certificate: Equatable, Sendable {
        public var der: [UInt8]
        public var notAfter: Int64
    }

    /// Why no TLS session came.
    public struct Failure: Error, Equatable, Sendable {
        public enum Kind: String, Sendable {
            case handshake
            case certificateExpired
            case certificateUntrusted
            case certificateWrongName
        }

        public var kind: Kind
        public var detail: String
    }

    /// The TLS handler's pipeline on the connection; HTTP/2 joins it above TLS.
    let pipeline: SocketPipeline
    /// Bytes decrypted but not yet handed to `receive(maximum:)`.
    private var pending: ByteBuffer?
    public let peer: Peer
    /// The protocol ALPN chose ("h2"), nil when none was.
    public let applicationProtocol: String?

    private init(pipeline: SocketPipeline, peer: Peer, applicationProtocol: String?) {
        self.pipeline = pipeline
        self.peer = peer
        self.applicationProtocol = applicationProtocol
    }

    /// The TLS handshake over `connection` to `address` (for a certificate checked against
    /// an address), naming `host` unless the settings name the server.
    public static func handshake(
        over connection: any ByteStream, address: IPAddress, port: UInt16, host: String, settings: TLSSettings, deadline: MonotonicInstant
    ) throws -> Result<TLSStream, Failure> {
        let context: NIOSSLContext
        do {
            context = try settings.context()
        } catch {
            return .failure(Failure(kind: .handshake, detail: "\(error.key): \(error.message)"))
        }
        let name = settings.serverName.isEmpty ? host : settings.serverName
        // SNI carries names only (RFC 6066, 3); an address is checked against the peer's.
        let serverName = (try? IPAddress.parse(name)) == nil && !name.isEmpty ? name : nil
        let chain = ChainRecorder()
        do {
            let handler = try NIOSSLClientHandler.make(context: context, serverHostname: serverName, verificationCallback: chain.record)
            let watcher = HandshakeWatcher()
            let pipeline = try SocketPipeline(over: connection, to: address, port: port, handlers: [handler, watcher])
            while !watcher.completed {
                guard try pipeline.flush(deadline: deadline) else {
                    return .failure(Failure(kind: .handshake, detail: "timed out sending the TLS handshake"))
                }
                switch try connection.receive(maximum: 16 * 1024, deadline: deadline) {
                case .data(let bytes): try pipeline.deliver(bytes)
                case .timedOut: return .failure(Failure(kind: .handshake, detail: "timed out in the TLS handshake"))
                case .closed, .reset: return .failure(Failure(kind: .handshake, detail: "connection closed in the TLS handshake"))
                }
            }
            _ = try pipeline.flush(deadline: deadline)
            let peer = try Self.peer(of: pipeline.channel, chain: chain, verified: !settings.insecureSkipVerify)
            return .success(TLSStream(pipeline: pipeline, peer: peer, applicationProtocol: watcher.applicationProtocol))
        } catch {
            return .failure(Self.classify(error, chain: chain))
        }
    }

    /// What the finished handshake showed: the version, the leaf, the chain verified.
    private static func peer(of channel: EmbeddedChannel, chain: ChainRecorder, verified: Bool) throws -> Peer {
        let version = try channel.pipeline.syncOperations.nioSSL_tlsVersion()
        let leaf = try channel.pipeline.syncOperations.nioSSL_peerCertificate()
        let leafCertificate = try leaf.map { Certificate(der: try $0.toDERBytes(), notAfter: Int64($0.notValidAfter)) }
        var seen = chain.certificates
        if let leafCertificate, !seen.contains(leafCertificate) { seen.append(leafCertificate) }
        return Peer(
            version: version.map { TLSProtocolVersion($0).goName } ?? "unknown", leaf: leafCertificate?.der ?? [],
            verifiedChain: verified ? chain.certificates : [], certificates: seen)
    }

    /// A failed handshake by its cause: the certificate BoringSSL refused (expired, or no
    /// chain to a trusted root), the name NIOSSL found missing from it, or the rest.
    private static func classify(_ error: any Error, chain: ChainRecorder) -> Failure {
        let detail = "TLS handshake: \(error)"
        if let refused = chain.refused {
            let now = RealtimeInstant.now().seconds
            return Failure(kind: refused.notAfter < now ? .certificateExpired : .certificateUntrusted, detail: detail)
        }
        // NIOSSLExtraError is not Equatable: its case is told by its description.
        if "\(error)".hasPrefix("NIOSSLExtraError.failedToValidateHostname") {
            return Failure(kind: .certificateWrongName, detail: detail)
        }
        return Failure(kind: .handshake, detail: detail)
    }

    public func sendAll(_ bytes: [UInt8], deadline: MonotonicInstant) throws -> Bool {
        try pipeline.send(pipeline.channel.allocator.buffer(bytes: bytes), deadline: deadline)
    }

    /// At most `maximum` bytes; what a record brought beyond them waits for the next call (a
    /// proxy's answer to CONNECT is read a byte at a time, and the tunnel's bytes follow it).
    public func receive(maximum: Int, deadline: MonotonicInstant) throws -> TCPConnection.ReceiveOutcome {
        var buffer: ByteBuffer
        if let pending, pending.readableBytes > 0 {
            buffer = pending
        } else {
            switch try pipeline.receive(ByteBuffer.self, deadline: deadline) {
            case .value(let value): buffer = value
            case .ended(let outcome): return outcome
            }
        }
        let bytes = buffer.readBytes(length: min(maximum, buffer.readableBytes)) ?? []
        pending = buffer
        return .data(bytes)
    }
}

/// The certificates BoringSSL's verification visits (its per-certificate callback, root
/// first), and the first it refused.
private final class ChainRecorder: @unchecked Sendable {
    private(set) var certificates: [TLSStream.Certificate] = []
    private(set) var refused: TLSStream.Certificate?

    func record(_ result: NIOSSLVerificationResult, _ certificate: NIOSSLCertificate) -> NIOSSLVerificationResult {
        if let der = try? certificate.toDERBytes() {
            let seen = TLSStream.Certificate(der: der, notAfter: Int64(certificate.notValidAfter))
            if !certificates.contains(seen) { certificates.append(seen) }
            if result == .failed, refused == nil { refused = seen }
        }
        return result
    }
}

/// Notes the handshake's end, which NIOSSL announces as a user event.
private final class HandshakeWatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private(set) var completed = false
    private(set) var applicationProtocol: String?

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent { (completed, applicationProtocol) = (true, negotiated) }
        context.fireUserInboundEventTriggered(event)
    }
}

/// NIOSSL's per-certificate verification callback: BoringSSL verifies the chain itself and
/// shows each certificate of the chain it built, which is how the verified chain of
/// blackbox_exporter's probe_ssl_last_chain_expiry_timestamp_seconds is known. NIOSSL
/// marks that initialiser deprecated in favour of callbacks that replace BoringSSL's
/// verification, which a probe must not do; reached through this protocol, which the
/// initialiser satisfies, it is used knowingly and without a warning at each build.
private protocol PerCertificateVerifying {
    init(context: NIOSSLContext, serverHostname: String?, verificationCallback: NIOSSLVerificationCallback?) throws
}

extension NIOSSLClientHandler: PerCertificateVerifying {}

extension NIOSSLClientHandler {
    fileprivate static func make(
        context: NIOSSLContext, serverHostname: String?, verificationCallback: @escaping NIOSSLVerificationCallback
    ) throws -> Self {
        try Self.makeVerifying(context: context, serverHostname: serverHostname, verificationCallback: verificationCallback)
    }

    private static func makeVerifying<Handler: PerCertificateVerifying>(
        context: NIOSSLContext, serverHostname: String?, verificationCallback: @escaping NIOSSLVerificationCallback
    ) throws -> Handler {
        try Handler(context: context, serverHostname: serverHostname, verificationCallback: verificationCallback)
    }
}
