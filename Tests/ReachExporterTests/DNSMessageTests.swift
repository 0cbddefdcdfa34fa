import XCTest
@testable import ReachExporterProbes

/// The DNS codec on hand-made messages: the query blackbox_exporter sends, responses with
/// compression, every record type's text as miekg/dns writes it, and hostile bytes.
final class DNSMessageTests: XCTestCase {
    /// Hex bytes, a comment after them on each line (from the first word that is not hex).
    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in text.split(separator: "\n") {
            for word in line.split(separator: " ") {
                guard word.allSatisfy(\.isHexDigit) else { break }
                var rest = word[...]
                while !rest.isEmpty {
                    bytes.append(UInt8(rest.prefix(2), radix: 16)!)
                    rest = rest.dropFirst(2)
                }
            }
        }
        return bytes
    }

    private func name(_ text: String) -> DNSName { try! DNSName.parse(text) }

    func testQueryIsHeaderAndOneQuestion() {
        let query = DNSMessage.query(
            id: 0xBEEF, .init(name: name("www.example.com"), type: 28, questionClass: 1), recursionDesired: true)
        XCTAssertEqual(query, hex("""
            beef 0100 0001 0000 0000 0000       id, RD, QDCOUNT 1, no other records
            03 777777 07 6578616d706c65 03 636f6d 00   www.example.com.
            001c 0001                           AAAA, IN
            """))
        let plain = DNSMessage.query(id: 1, .init(name: name("."), type: 255, questionClass: 3), recursionDesired: false)
        XCTAssertEqual(plain, hex("0001 0000 0001 0000 0000 0000  00  00ff 0003"))
    }

    func testNamesInPresentationForm() throws {
        XCTAssertEqual(try DNSName.parse("a\\.b.c.").labels, [Array("a.b".utf8), Array("c".utf8)])
        XCTAssertEqual(try DNSName.parse("\\065\\032x").labels, [[65, 32, 120]])
        XCTAssertEqual(name("a\\.b.c").text, "a\\.b.c.")
        XCTAssertEqual(DNSName(labels: [[0x41, 0x20, 0x09, 0xFF, 0x40]]).text, "A\\ \\009\\255\\@.")
        XCTAssertEqual(DNSName(labels: []).text, ".")
        for bad in ["a..b", "..", "a\\", "a\\25", "a\\256", String(repeating: "x", count: 64) + ".lab"] {
            XCTAssertThrowsError(try DNSName.parse(bad), bad)
        }
        let long = Array(repeating: String(repeating: "x", count: 63), count: 4).joined(separator: ".")
        XCTAssertThrowsError(try DNSName.parse(long), "256 bytes on the wire")
        XCTAssertNoThrow(try DNSName.parse(String(long.dropFirst(2))))
    }

    /// A response to "h.lab A" with compression pointers to the question's name, as dnsmasq answers.
    private let compressed = """
        1234 8580 0001 0002 0001 0001       id, QR AA RD RA, 1 question, 2 answers, 1 authority, 1 additional
        01 68 03 6c6162 00 0001 0001        h.lab. A IN
        c00c 0001 0001 00000258 0004 c6120006        h.lab. 600 IN A 198.18.0.6
        c00c 0005 0001 0000003c 0004 01 63 c00e      h.lab. 60 IN CNAME c.lab. (pointer to lab.)
        c00e 0002 0001 00000e10 0005 02 6e73 c00e    lab. 3600 IN NS ns.lab.
        c00c 001c 0001 00000258 0010 20010db8000000000000000000000006   h.lab. AAAA 2001:db8::6
        """

    func testResponseWithCompression() throws {
        let message = try DNSMessage.decode(hex(compressed))
        XCTAssertEqual(message.id, 0x1234)
        XCTAssertTrue(message.isResponse)
        XCTAssertEqual(message.rcode, 0)
        XCTAssertEqual(message.questions, [.init(name: name("h.lab"), type: 1, questionClass: 1)])
        XCTAssertEqual(message.answers.map(\.text), ["h.lab.\t600\tIN\tA\t198.18.0.6", "h.lab.\t60\tIN\tCNAME\tc.lab."])
        XCTAssertEqual(message.authorities.map(\.text), ["lab.\t3600\tIN\tNS\tns.lab."])
        XCTAssertEqual(message.additionals.map(\.text), ["h.lab.\t600\tIN\tAAAA\t2001:db8::6"])
    }

    /// One record of `type` with `data`, named "x." (TTL 300, class IN), as text.
    private func text(type: UInt16, _ data: String, recordClass: UInt16 = 1) throws -> String {
        let bytes = hex(data)
        var message = hex("0001 8000 0000 0001 0000 0000  01 78 00") + [UInt8(type >> 8), UInt8(type & 0xFF)]
        message += [UInt8(recordClass >> 8), UInt8(recordClass & 0xFF), 0, 0, 1, 0x2C, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)]
        let decoded = try DNSMessage.decode(message + bytes)
        XCTAssertEqual(decoded.answers.count, 1)
        return decoded.answers.first?.text ?? ""
    }

    /// miekg/dns's String() of each type (`types.go`), as blackbox_exporter's regular expressions see it.
    /// Each type's data (hex) and the text after "x. TAB 300 TAB IN TAB".
    private static let presentations: [(type: UInt16, data: String, text: String)] = [
        (1, "c0000201", "A\t192.0.2.1"),
        (28, "20010db8000000010000000000000001", "AAAA\t2001:db8:0:1::1"),
        (28, "20010db8000100010001000100010001", "AAAA\t2001:db8:1:1:1:1:1:1"),
        (28, "00000000000000000000ffffc0000201", "AAAA\t192.0.2.1"),
        (28, "00000000000000000000000000000000", "AAAA\t::"),
        (28, "20010db8000000000001000000000000", "AAAA\t2001:db8:0:0:1::"),
        (2, "026e7300", "NS\tns."),
        (12, "01 61 c00c", "PTR\ta.x."),
        (15, "000a 046d61696c 00", "MX\t10 mail."),
        (16, "0568656c6c6f 03 22 5c 09 00", "TXT\t\"hello\" \"\\\"\\\\\\009\" \"\""),
        (6, "026e7300 0a686f73746d6173746572 00 78c25c19 00000e10 00000384 00093a80 0000012c",
         "SOA\tns. hostmaster. 2026003481 3600 900 604800 300"),
        (33, "0001 0002 13c4 03736970 00", "SRV\t1 2 5060 sip."),
        (257, "00 05 6973737565 6361 2e6f7267", "CAA\t0 issue \"ca.org\""),
        (13, "03 783836 05 4c696e7578", "HINFO\t\"x86\" \"Linux\""),
        (35, "0064 000a 01 53 07 5349502b443255 00 04 5f736970 04 5f756470 01 78 00",
         "NAPTR\t100 10 \"S\" \"SIP+D2U\" \"\" _sip._udp.x."),
        (43, "ec45 05 01 2bb183af5f22588179a53b0a98631fad1a292118", "DS\t60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118"),
        (48, "0100 03 08 01020304", "DNSKEY\t256 3 8 AQIDBA=="),
        (48, "0101 03 08 010203", "DNSKEY\t257 3 8 AQID"),
        (44, "01 02 abcd", "SSHFP\t1 2 ABCD"),
        (52, "03 01 01 abcd", "TLSA\t3 1 1 abcd"),
        (256, "000a 0001 687474703a2f2f782f", "URI\t10 1 \"http://x/\""),
        (47, "01 61 01 78 00  00 06 62 01 80 08 00 03  01 01 40", "NSEC\ta.x. A NS SOA MX TXT AAAA RRSIG NSEC CAA"),
        (1, "", "A\t"),
    ]

    /// miekg/dns's String() of each type (`types.go`), as blackbox_exporter's regular expressions see it.
    func testEveryTypesTextIsMiekgDNSs() throws {
        for (type, data, text) in Self.presentations {
            XCTAssertEqual(try self.text(type: type, data), "x.\t300\tIN\t" + text)
        }
        XCTAssertEqual(try text(type: 16, "03 616263", recordClass: 3), "x.\t300\tCH\tTXT\t\"abc\"")
        // A type miekg/dns has no struct for, and a class without a name: RFC 3597's form.
        XCTAssertEqual(try text(type: 65280, "dead", recordClass: 9), "x.\t300\tCLASS9\tTYPE65280\t\\# 2 dead")
        XCTAssertThrowsError(try text(type: 47, "00  01 01 40  00 01 40"), "NSEC windows out of order")
        XCTAssertThrowsError(try text(type: 47, "00  00 00"), "an empty NSEC window")
        XCTAssertThrowsError(try text(type: 43, "ec45 05"), "a DS cut short")
    }

    func testEDNSExtendedRcodeJoinsTheHeaders() throws {
        // BADVERS (16): header RCODE 0, OPT's extended RCODE 1 (RFC 6891, 6.1.3).
        let message = try DNSMessage.decode(hex("""
            0001 8000 0000 0000 0000 0001
            00 0029 1000 01000000 0000          root, OPT, udp 4096, extended rcode 1, version 0
            """))
        XCTAssertEqual(message.rcode, 16)
        XCTAssertEqual(message.additionals.first?.text, "\n;; OPT PSEUDOSECTION:\n; EDNS: version 0; flags: ; udp: 4096")
        XCTAssertEqual(try DNSMessage.decode(hex("0001 8183 0000 0000 0000 0000")).rcode, 3)
    }

    /// miekg/dns stops without an error where the message ends between entries (a count that
    /// lies, a header-only REFUSED), and fails on an entry cut in its middle.
    func testTruncationBetweenAndInsideEntries() throws {
        let headerOnly = try DNSMessage.decode(hex("0001 8205 0001 0003 0000 0000"))
        XCTAssertEqual(headerOnly.rcode, 5)
        XCTAssertTrue(headerOnly.isTruncated)
        XCTAssertEqual(headerOnly.questions.count + headerOnly.answers.count, 0)
        let bytes = hex(compressed)
        let (questionEnd, firstAnswerEnd) = (12 + 11, 12 + 11 + 16)
        XCTAssertEqual(try DNSMessage.decode(Array(bytes[..<questionEnd])).questions.count, 1)
        XCTAssertEqual(try DNSMessage.decode(Array(bytes[..<firstAnswerEnd])).answers.count, 1)
        for end in [0, 5, 11, 14, 20, firstAnswerEnd - 1, firstAnswerEnd + 3, bytes.count - 1] {
            XCTAssertThrowsError(try DNSMessage.decode(Array(bytes[..<end])), "cut at \(end)")
        }
    }

    func testHostileNamesAndLengths() {
        let hostile: [(String, String)] = [
            ("0001 8000 0001 0000 0000 0000  c00c 0001 0001", "a pointer to itself"),
            ("0001 8000 0001 0000 0000 0000  c00e c00c 0001 0001", "two pointers to each other"),
            ("0001 8000 0001 0000 0000 0000  c0ff", "a pointer past the end"),
            ("0001 8000 0001 0000 0000 0000  40 00 0001 0001", "label type 0x40"),
            ("0001 8000 0001 0000 0000 0000  3f 41", "a label longer than the message"),
            ("0001 8000 0000 0001 0000 0000  00 0001 0001 00000000 ffff c0000201", "RDLENGTH past the end"),
            ("0001 8000 0000 0001 0000 0000  00 0001 0001 00000000 0005 c000020101", "an A of 5 bytes"),
            ("0001 8000 0000 0001 0000 0000  00 000f 0001 00000000 0005 000a 00 0000", "an MX with bytes left over"),
            ("0001 8000 0000 0001 0000 0000  00 0010 0001 00000000 0002 0561", "a TXT string past its record"),
        ]
        for (bytes, what) in hostile {
            XCTAssertThrowsError(try DNSMessage.decode(hex(bytes)), what)
        }
        // A question whose name is a chain of pointers, each to the one before, down to the root:
        // 126 pointers are followed (miekg/dns's bound), 127 are not.
        func chain(_ count: Int) -> [UInt8] {
            let last = 19 + 2 * (count - 2)
            var bytes = hex("0001 8000 0001 0000 0000 0000") + [0xC0 | UInt8(last >> 8), UInt8(last & 0xFF), 0, 1, 0, 1, 0]
            for index in 0..<count - 1 {
                let target = index == 0 ? 18 : 17 + 2 * index
                bytes += [0xC0 | UInt8(target >> 8), UInt8(target & 0xFF)]
            }
            return bytes
        }
        XCTAssertEqual(try DNSMessage.decode(chain(126)).questions.first?.name, DNSName(labels: []))
        XCTAssertThrowsError(try DNSMessage.decode(chain(127)))
        // A name of 127 one-byte labels and the root: 255 bytes, the most RFC 1035 allows.
        let longest = hex("0001 8000 0001 0000 0000 0000") + Array(repeating: [1, 0x61], count: 127).flatMap { $0 } + [0, 0, 1, 0, 1]
        XCTAssertEqual(try DNSMessage.decode(longest).questions.first?.name.labels.count, 127)
        let tooLong = hex("0001 8000 0001 0000 0000 0000") + Array(repeating: [1, 0x61], count: 128).flatMap { $0 } + [0, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage.decode(tooLong))
    }

    func testParameterNames() {
        XCTAssertEqual(DNSParameters.type(named: "AAAA"), 28)
        XCTAssertEqual(DNSParameters.type(named: "NSAP-PTR"), 23)
        XCTAssertNil(DNSParameters.type(named: "aaaa"))
        XCTAssertEqual(DNSParameters.class(named: "CH"), 3)
        XCTAssertEqual(DNSParameters.responseCode(named: "BADVERS"), 16)
        XCTAssertEqual(DNSParameters.responseCodeName(16), "BADSIG")
        XCTAssertEqual(DNSParameters.typeName(65280), "TYPE65280")
    }
}
