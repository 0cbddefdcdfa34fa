/// reach's version, which `reach --version` and `reach-exporter --version` print; the
/// Debian package's upstream version (debian/changelog) is held equal to it by a test.
public enum ReachVersion {
    public static let current = "0.1.0"
}
