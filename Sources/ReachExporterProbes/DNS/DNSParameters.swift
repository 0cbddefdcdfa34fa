/// The names of DNS types, classes and response codes, as miekg/dns spells them
/// (`ztypes.go` TypeToString, `msg.go` ClassToString and RcodeToString), which is what
/// blackbox_exporter's `query_type`, `query_class` and `valid_rcodes` accept and what its
/// record text shows. Numbers: IANA's "Domain Name System (DNS) Parameters" registry.
public enum DNSParameters {
    static let types: [(UInt16, String)] = [
        (0, "None"), (1, "A"), (2, "NS"), (3, "MD"), (4, "MF"), (5, "CNAME"), (6, "SOA"), (7, "MB"), (8, "MG"), (9, "MR"),
        (10, "NULL"), (12, "PTR"), (13, "HINFO"), (14, "MINFO"), (15, "MX"), (16, "TXT"), (17, "RP"), (18, "AFSDB"),
        (19, "X25"), (20, "ISDN"), (21, "RT"), (23, "NSAP-PTR"), (24, "SIG"), (25, "KEY"), (26, "PX"), (27, "GPOS"),
        (28, "AAAA"), (29, "LOC"), (30, "NXT"), (31, "EID"), (32, "NIMLOC"), (33, "SRV"), (34, "ATMA"), (35, "NAPTR"),
        (36, "KX"), (37, "CERT"), (39, "DNAME"), (41, "OPT"), (42, "APL"), (43, "DS"), (44, "SSHFP"), (46, "RRSIG"),
        (47, "NSEC"), (48, "DNSKEY"), (49, "DHCID"), (50, "NSEC3"), (51, "NSEC3PARAM"), (52, "TLSA"), (53, "SMIMEA"),
        (55, "HIP"), (56, "NINFO"), (57, "RKEY"), (58, "TALINK"), (59, "CDS"), (60, "CDNSKEY"), (61, "OPENPGPKEY"),
        (62, "CSYNC"), (63, "ZONEMD"), (64, "SVCB"), (65, "HTTPS"), (99, "SPF"), (100, "UINFO"), (101, "UID"), (102, "GID"),
        (103, "UNSPEC"), (104, "NID"), (105, "L32"), (106, "L64"), (107, "LP"), (108, "EUI48"), (109, "EUI64"),
        (249, "TKEY"), (250, "TSIG"), (251, "IXFR"), (252, "AXFR"), (253, "MAILB"), (254, "MAILA"), (255, "ANY"),
        (256, "URI"), (257, "CAA"), (258, "AVC"), (32768, "TA"), (32769, "DLV"), (65535, "Reserved"),
    ]

    static let classes: [(UInt16, String)] = [(1, "IN"), (2, "CS"), (3, "CH"), (4, "HS"), (254, "NONE"), (255, "ANY")]

    /// RFC 6891 gives 16 to BADVERS too; miekg/dns names it BADSIG and accepts both.
    static let responseCodes: [(Int, String)] = [
        (0, "NOERROR"), (1, "FORMERR"), (2, "SERVFAIL"), (3, "NXDOMAIN"), (4, "NOTIMP"), (5, "REFUSED"), (6, "YXDOMAIN"),
        (7, "YXRRSET"), (8, "NXRRSET"), (9, "NOTAUTH"), (10, "NOTZONE"), (16, "BADSIG"), (16, "BADVERS"), (17, "BADKEY"),
        (18, "BADTIME"), (19, "BADMODE"), (20, "BADNAME"), (21, "BADALG"), (22, "BADTRUNC"), (23, "BADCOOKIE"),
    ]

    /// The names configurations may give.
    public static var typeNames: [String] { types.map(\.1) }
    public static var classNames: [String] { classes.map(\.1) }
    public static var responseCodeNames: [String] { responseCodes.map(\.1) }

    public static func type(named name: String) -> UInt16? { types.first { $0.1 == name }?.0 }
    public static func `class`(named name: String) -> UInt16? { classes.first { $0.1 == name }?.0 }
    public static func responseCode(named name: String) -> Int? { responseCodes.first { $0.1 == name }?.0 }

    /// "TYPE65280" for a type without a name (RFC 3597, 5).
    public static func typeName(_ value: UInt16) -> String { types.first { $0.0 == value }?.1 ?? "TYPE\(value)" }
    public static func className(_ value: UInt16) -> String { classes.first { $0.0 == value }?.1 ?? "CLASS\(value)" }
    public static func responseCodeName(_ value: Int) -> String { responseCodes.first { $0.0 == value }?.1 ?? "\(value)" }
}
