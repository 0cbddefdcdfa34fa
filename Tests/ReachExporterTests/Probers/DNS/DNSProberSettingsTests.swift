import XCTest

@testable import ReachCore
@testable import ReachExporter
import ReachExporterProbes
import ReachSystem

/// The dns module's keys as blackbox_exporter 0.23 reads them, what is refused at load
/// (one line naming the key and its line), the target form, the record validators' rules and
/// the metrics' names.
final class DNSProberSettingsTests: XCTestCase {
    private func module(_ dns: String, file: StaticString = #filePath, line: UInt = #line) throws -> ExporterModule {
        let modules = try ExporterConfiguration.parse("modules:\n  d:\n    prober: dns\n    dns:\n" + dns)
        return modules[0]
    }

    private func error(_ dns: String) -> String? {
        do {
            _ = try module(dns)
            return nil
        } catch {
            return (error as? ExporterConfiguration.Error)?.message ?? "\(error)"
        }
    }

    func testDefaultsAreBlackboxs() throws {
        let settings = try module("      query_name: example.lab\n").dns
        XCTAssertEqual(try settings.question, .init(name: try DNSName.parse("example.lab."), type: 255, questionClass: 1))
        XCTAssertTrue(settings.recursionDesired)
        XCTAssertEqual(settings.transport, .udp)
        XCTAssertEqual(settings.address.sourceIPAddress, "")
        XCTAssertEqual(settings.validResponseCodes, [0])
        XCTAssertEqual(settings.validateAnswer, .init())
    }

    func testEveryKey() throws {
        let module = try module("""
                  query_name: "www.example.lab"
                  query_type: AAAA
                  query_class: CH
                  recursion_desired: false
                  transport_protocol: tcp
                  source_ip_address: 2001:db8::2
                  preferred_ip_protocol: ip4
                  ip_protocol_fallback: false
                  valid_rcodes: [NOERROR, NXDOMAIN]
                  validate_answer_rrs:
                    fail_if_matches_regexp: [".*127.0.0.1"]
                    fail_if_all_match_regexp: [".*"]
                    fail_if_not_matches_regexp: ["www.example.lab.\\t300\\tIN\\tAAAA\\t2001:db8::1"]
                    fail_if_none_matches_regexp: ["2001:db8::1"]
                  validate_authority_rrs:
                    fail_if_matches_regexp: [".*"]
                  validate_additional_rrs:
                    fail_if_none_matches_regexp: ["x"]

            """)
        let settings = module.dns
        XCTAssertEqual(try settings.question, .init(name: try DNSName.parse("www.example.lab."), type: 28, questionClass: 3))
        XCTAssertFalse(settings.recursionDesired)
        XCTAssertEqual(settings.transport, .tcp)
        XCTAssertEqual(settings.address.source, try IPAddress.parse("2001:db8::2"))
        XCTAssertEqual(module.preferredIPProtocol, .ip4)
        XCTAssertFalse(module.ipProtocolFallback)
        XCTAssertEqual(settings.validResponseCodes, [0, 3])
        XCTAssertEqual(
            settings.validateAnswer.failIfNotMatchesRegexp.map(\.pattern), ["www.example.lab.\t300\tIN\tAAAA\t2001:db8::1"])
        XCTAssertEqual(settings.validateAnswer.failIfAllMatchRegexp.map(\.pattern), [".*"])
        XCTAssertEqual(settings.validateAuthority.failIfMatchesRegexp.map(\.pattern), [".*"])
        XCTAssertEqual(settings.validateAdditional.failIfNoneMatchesRegexp.map(\.pattern), ["x"])
    }

    /// What blackbox_exporter refuses at load, and what it finds wrong only at each probe:
    /// both stop reach-exporter's start with the key and its line.
    func testMistakesAreOneLineWithTheirLine() {
        XCTAssertEqual(error("      query_type: A\n"), "line 5: dns: query name must be set for DNS module")
        XCTAssertEqual(error("      query_name: a.lab\n      query_type: AAA\n"),
                       "line 6: dns.query_type: 'AAA' is not a name blackbox_exporter knows")
        XCTAssertEqual(error("      query_name: a.lab\n      query_class: INET\n"),
                       "line 6: dns.query_class: 'INET' is not one of IN, CS, CH, HS, NONE, ANY")
        XCTAssertEqual(error("      query_name: a.lab\n      valid_rcodes: [NOERROR, NOPE]\n"),
                       "line 6: dns.valid_rcodes: 'NOPE' is not a name blackbox_exporter knows")
        XCTAssertEqual(error("      query_name: a.lab\n      transport_protocol: quic\n"),
                       "line 6: dns.transport_protocol: 'quic' is not one of udp, tcp")
        XCTAssertEqual(error("      query_name: a.lab\n      validate_answer_rrs:\n        fail_if_matches_regexp: [\"(\"]\n"),
                       "line 7: dns.validate_answer_rrs.fail_if_matches_regexp: '(': missing closing )")
        XCTAssertEqual(error("      query_name: a.lab\n      validate_answer_rrs:\n        fail_if_match: [x]\n"),
                       "line 7: dns.validate_answer_rrs.fail_if_match: unknown key (blackbox_exporter 0.23 has no such setting)")
        XCTAssertEqual(error("      query_name: a.lab\n      dns_over_tls: true\n"),
                       "line 5: dns.dns_over_tls: needs transport_protocol: tcp")
        XCTAssertEqual(error("      query_name: a.lab\n      source_ip_address: nowhere\n"),
                       "line 6: dns.source_ip_address: 'nowhere' is not an IP address")
        XCTAssertEqual(error("      query_name: a..lab\n"), "line 5: dns.query_name: 'a..lab' has an empty label")
        XCTAssertEqual(error("      query_name: a.lab\n      qname: b\n"),
                       "line 6: dns.qname: unknown key (blackbox_exporter 0.23 has no such setting)")
    }

    func testTargetIsHostAndPort53ByDefault() throws {
        XCTAssertEqual(try ProbeTarget.parse("198.18.0.1", for: .dns), ProbeTarget(host: "198.18.0.1"))
        XCTAssertEqual(try ProbeTarget.parse("198.18.0.1:5353", for: .dns), ProbeTarget(host: "198.18.0.1", port: 5353))
        XCTAssertEqual(try ProbeTarget.parse("2001:db8::1", for: .dns), ProbeTarget(host: "2001:db8::1"))
        XCTAssertEqual(try ProbeTarget.parse("[2001:db8::1]", for: .dns), ProbeTarget(host: "2001:db8::1"))
        XCTAssertEqual(try ProbeTarget.parse("[2001:db8::1]:54", for: .dns), ProbeTarget(host: "2001:db8::1", port: 54))
        XCTAssertEqual(try ProbeTarget.parse("ns.lab", for: .dns), ProbeTarget(host: "ns.lab"))
        XCTAssertThrowsError(try ProbeTarget.parse("ns.lab:0", for: .dns))
        XCTAssertThrowsError(try ProbeTarget.parse("ns.lab:x", for: .dns))
    }

    /// blackbox_exporter's validRRs (`prober/dns.go`), its fail_if_all_match_regexp included,
    /// which fails when some record does not match.
    func testValidatorsRules() throws {
        var validator = DNSProberSettings.RRValidator()
        let records = ["a.\t60\tIN\tA\t192.0.2.1", "a.\t60\tIN\tA\t192.0.2.2"]
        XCTAssertNil(validator.failure(of: records))
        validator.failIfMatchesRegexp = [try BlackboxRegex("192\\.0\\.2\\.2$")]
        XCTAssertEqual(validator.failure(of: records), "fail_if_matches_regexp")
        validator = .init()
        validator.failIfAllMatchRegexp = [try BlackboxRegex("192\\.0\\.2\\.1")]
        XCTAssertEqual(validator.failure(of: records), "fail_if_all_match_regexp")
        validator.failIfAllMatchRegexp = [try BlackboxRegex("^a\\.\\t")]
        XCTAssertNil(validator.failure(of: records))
        validator = .init()
        validator.failIfNotMatchesRegexp = [try BlackboxRegex("192\\.0\\.2\\.1")]
        XCTAssertEqual(validator.failure(of: records), "fail_if_not_matches_regexp")
        XCTAssertEqual(validator.failure(of: []), "fail_if_not_matches_regexp")
        validator = .init()
        validator.failIfNoneMatchesRegexp = [try BlackboxRegex("192\\.0\\.2\\.2")]
        XCTAssertNil(validator.failure(of: records))
        validator.failIfNoneMatchesRegexp = [try BlackboxRegex("198\\.")]
        XCTAssertEqual(validator.failure(of: records), "fail_if_none_matches_regexp")
        XCTAssertEqual(validator.failure(of: []), "fail_if_none_matches_regexp")
    }

    func testMetricsAreBlackboxsNames() throws {
        var measurement = ProbeMeasurement(detail: .dns(.init()))
        measurement.address = try IPAddress.parse("198.18.0.1")
        var dns = ProbeMeasurement.DNS()
        dns.querySucceeded = true
        (dns.answerCount, dns.authorityCount, dns.additionalCount, dns.serial) = (2, 1, 0, 2_026_112_601)
        measurement.detail = .dns(dns)
        measurement.success = true
        let values = Dictionary(measurement.samples.map { sample in
            (sample.name + sample.labels.map { "{\($0.name)=\($0.value)}" }.joined(), sample.value)
        }) { first, _ in first }
        XCTAssertEqual(values["probe_dns_answer_rrs"], 2)
        XCTAssertEqual(values["probe_dns_authority_rrs"], 1)
        XCTAssertEqual(values["probe_dns_additional_rrs"], 0)
        XCTAssertEqual(values["probe_dns_query_succeeded"], 1)
        XCTAssertEqual(values["probe_dns_serial"], 2_026_112_601)
        XCTAssertEqual(values["probe_ip_protocol"], 4)
        for phase in ["resolve", "connect", "request"] { XCTAssertNotNil(values["probe_dns_duration_seconds{phase=\(phase)}"]) }
        XCTAssertEqual(values.count, 13)
    }
}
