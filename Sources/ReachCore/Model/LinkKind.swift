/// The kind of link a path leaves through: the closed list `reach` reports (docs/MODEL.md).
public enum LinkKind: String, Hashable, Sendable, CaseIterable {
    case loopback
    case ethernet
    case wifi
    case cellular
    case vpn
    case bridge
    case virtual
    case other
}
