import Foundation

/// Where a PostgreSQL store's database is and how to log in, read from a `postgresql://` URL:
/// `postgresql://user:password@host:port/database?sslmode=require`.
///
/// The password is kept for connecting only: ``description`` and every error name the server
/// as ``serverDescription``, which leaves it out.
struct PostgreSQLConfiguration: Sendable, CustomStringConvertible {
    /// The host name or address; nil for libpq's default (the local socket).
    var host: String?
    /// The port; nil for libpq's default (5432).
    var port: Int?
    /// The database name.
    var database: String
    /// The user name; nil for libpq's default (the operating-system user).
    var user: String?
    /// The password; nil to use none (or libpq's password file).
    var password: String?
    /// libpq's `sslmode` (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`); nil for
    /// libpq's default (`prefer`).
    var sslMode: String?
    /// Seconds to wait for the server when connecting; nil for libpq's default.
    var connectTimeout: Int?

    /// The TLS modes libpq knows.
    static let sslModes: Set<String> = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// Reads a `postgresql://` (or `postgres://`) URL. Query items other than `sslmode` and
    /// `connect_timeout` are refused, so that a misspelt option does not pass unnoticed.
    ///
    /// - Throws: ``PostgreSQLError`` with ``PostgreSQLError/Kind/invalidURL``.
    init(url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "postgresql" || scheme == "postgres"
        else {
            throw PostgreSQLError(.invalidURL, message: "a PostgreSQL store needs a postgresql:// URL, not \(Self.redacted(url))")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        port = components.port
        if let port, !(1...65_535).contains(port) {
            throw PostgreSQLError(.invalidURL, message: "\(Self.redacted(url)) names the port \(port), which is not 1…65535")
        }
        user = components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty, !path.contains("/") else {
            throw PostgreSQLError(.invalidURL, message: "\(Self.redacted(url)) names no database (postgresql://host:port/database)")
        }
        database = path.removingPercentEncoding ?? path
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, Self.sslModes.contains(value) else {
                    throw PostgreSQLError(
                        .invalidURL, message: "\(Self.redacted(url)) has sslmode=\(item.value ?? ""), which is not one of "
                            + Self.sslModes.sorted().joined(separator: ", "))
                }
                sslMode = value
            case "connect_timeout":
                guard let value = item.value.flatMap(Int.init), value >= 0 else {
                    throw PostgreSQLError(.invalidURL, message: "\(Self.redacted(url)) has a connect_timeout that is not a number of seconds")
                }
                connectTimeout = value
            default:
                throw PostgreSQLError(
                    .invalidURL, message: "\(Self.redacted(url)) has the option \(item.name), which the store does not know "
                        + "(it reads sslmode and connect_timeout)")
            }
        }
    }

    /// The server and database without the password: `postgresql://user@host:5432/database`.
    var serverDescription: String {
        "postgresql://" + (user.map { $0 + "@" } ?? "") + (host ?? "localhost") + ":" + String(port ?? 5432) + "/" + database
    }

    var description: String { serverDescription }

    /// libpq's connection keywords and values (the password among them).
    var connectionParameters: [(String, String)] {
        var parameters: [(String, String)] = [("dbname", database), ("client_encoding", "UTF8")]
        if let host { parameters.append(("host", host)) }
        if let port { parameters.append(("port", String(port))) }
        if let user { parameters.append(("user", user)) }
        if let password { parameters.append(("password", password)) }
        if let sslMode { parameters.append(("sslmode", sslMode)) }
        if let connectTimeout { parameters.append(("connect_timeout", String(connectTimeout))) }
        // Doubles as text in their shortest form that reads back exactly; UTC for any date
        // arithmetic; no locale-dependent messages to parse.
        parameters.append(("options", "-c extra_float_digits=3 -c TimeZone=UTC"))
        parameters.append(("application_name", "ModelObjects"))
        return parameters
    }

    /// `url` without its password, for messages.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return url.absoluteString
        }
        components.password = nil
        return components.string ?? "<the URL>"
    }
}
