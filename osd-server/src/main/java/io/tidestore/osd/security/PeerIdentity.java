package io.tidestore.osd.security;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who a TLS peer is: the common name (CN) of the certificate it presented, which the auth file's
 * lines name. A peer without a certificate has no identity.
 */
public final class PeerIdentity {
  private PeerIdentity() {}

  /** The CN of the peer's certificate in {@code session}, or null when it presented none. */
  public static String of(SSLSession session) {
    if (session == null) {
      return null;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? commonName(x) : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /** The CN of {@code cert}'s subject, or null when it has none. */
  public static String commonName(X509Certificate cert) {
    try {
      LdapName name = new LdapName(cert.getSubjectX500Principal().getName());
      String cn = null;
      for (Rdn rdn : name.getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          cn = rdn.getValue().toString();
        }
      }
      return cn;
    } catch (InvalidNameException e) {
      return null;
    }
  }
}
