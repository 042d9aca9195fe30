package io.tidestore.osd.security;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A certificate authority for {@code tidestore tls init}: ECDSA P-256 keys and X.509 v3
 * certificates (Bouncy Castle builds them; no shell-out), written as PEM in the layouts nbdkit and
 * libnbd read. The CA signs a server certificate (SANs for the addresses clients dial; it is also
 * good as a client certificate, for the daemons' links to one another) and client certificates
 * whose common name is the client's identity in {@code --auth-file}.
 *
 * <p>Extensions follow what GnuTLS (qemu, nbdkit) checks: the CA has basicConstraints CA:TRUE and
 * keyUsage keyCertSign; leaves have digitalSignature and keyEncipherment (not critical) and the
 * extended key usage of their role.
 */
public final class CertificateAuthority {
  /** The CA's private key file, kept beside ca-cert.pem so more clients can be added later. */
  public static final String CA_KEY = "ca-key.pem";

  private static final String SIGNATURE = "SHA256withECDSA";
  private static final Duration SKEW = Duration.ofHours(1);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final X509Certificate cert;
  private final PrivateKey key;

  private CertificateAuthority(X509Certificate cert, PrivateKey key) {
    this.cert = cert;
    this.key = key;
  }

  /** A new CA named {@code commonName}, valid for {@code validity} from now. */
  public static CertificateAuthority create(String commonName, Duration validity)
      throws GeneralSecurityException {
    KeyPair pair = newKeyPair();
    X500Name name = name(commonName);
    Instant now = Instant.now();
    X509v3CertificateBuilder b =
        new JcaX509v3CertificateBuilder(
            name,
            serial(),
            Date.from(now.minus(SKEW)),
            Date.from(now.plus(validity)),
            name,
            pair.getPublic());
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      b.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
      return new CertificateAuthority(sign(b, pair.getPrivate()), pair.getPrivate());
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot encode the CA's extensions", e);
    }
  }

  /** The CA stored in {@code dir} ({@code ca-cert.pem} and {@link #CA_KEY}). */
  public static CertificateAuthority load(Path dir) throws IOException, GeneralSecurityException {
    X509Certificate cert;
    try (var in = Files.newInputStream(dir.resolve(CertificateFiles.CA))) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    try (PEMParser p =
        new PEMParser(Files.newBufferedReader(dir.resolve(CA_KEY), StandardCharsets.US_ASCII))) {
      Object o = p.readObject();
      JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
      PrivateKey key =
          switch (o) {
            case PEMKeyPair kp -> conv.getKeyPair(kp).getPrivate();
            case PrivateKeyInfo info -> conv.getPrivateKey(info);
            case null, default ->
                throw new IOException(dir.resolve(CA_KEY) + " holds no private key");
          };
      return new CertificateAuthority(cert, key);
    }
  }

  public X509Certificate certificate() {
    return cert;
  }

  PrivateKey key() {
    return key;
  }

  /** A leaf certificate and its key. */
  public record Issued(X509Certificate certificate, PrivateKey key) {}

  /**
   * A server certificate for {@code commonName} naming {@code sans} (IP addresses or DNS names),
   * valid from {@code notBefore} for {@code validity}; also usable as a client certificate.
   */
  public Issued server(String commonName, List<String> sans, Instant notBefore, Duration validity)
      throws GeneralSecurityException {
    List<GeneralName> names = new ArrayList<>();
    for (String san : sans) {
      names.add(
          isIpAddress(san)
              ? new GeneralName(GeneralName.iPAddress, san)
              : new GeneralName(GeneralName.dNSName, san));
    }
    return leaf(
        commonName,
        notBefore,
        validity,
        new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
        names.isEmpty() ? null : new GeneralNames(names.toArray(GeneralName[]::new)));
  }

  /** A client certificate whose common name is the client's identity. */
  public Issued client(String commonName, Instant notBefore, Duration validity)
      throws GeneralSecurityException {
    return leaf(
        commonName, notBefore, validity, new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}, null);
  }

  private Issued leaf(
      String commonName,
      Instant notBefore,
      Duration validity,
      KeyPurposeId[] purposes,
      GeneralNames sans)
      throws GeneralSecurityException {
    KeyPair pair = newKeyPair();
    X509v3CertificateBuilder b =
        new JcaX509v3CertificateBuilder(
            cert,
            serial(),
            Date.from(notBefore.minus(SKEW)),
            Date.from(notBefore.plus(validity)),
            org.bouncycastle.asn1.x500.X500Name.getInstance(name(commonName)),
            pair.getPublic());
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(
          Extension.keyUsage,
          false,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
      b.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
      b.addExtension(
          Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(cert));
      if (sans != null) {
        b.addExtension(Extension.subjectAlternativeName, false, sans);
      }
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot encode the certificate's extensions", e);
    }
    return new Issued(sign(b, key), pair.getPrivate());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer)
      throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(b.build(new JcaContentSignerBuilder(SIGNATURE).build(signer)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign with " + SIGNATURE, e);
    }
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static X500Name name(String commonName) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static boolean isIpAddress(String s) {
    if (!s.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
      return false;
    }
    try {
      InetAddress.ofLiteral(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  // ------------------------------------------------------------------ PEM files

  /** Writes {@code cert} as PEM to {@code path} (world-readable), atomically. */
  public static void writeCertificate(Path path, X509Certificate cert) throws IOException {
    writeAtomically(path, false, w -> w.writeObject(cert));
  }

  /**
   * Writes {@code key} as unencrypted PKCS#8 PEM to {@code path}, readable by its owner only. An EC
   * key carries its public point too: the JDK encodes EC private keys without it, and GnuTLS
   * (libnbd, qemu, nbdkit) then refuses the file ("ASN1 parser: Element was not found").
   */
  public static void writeKey(Path path, PrivateKey key) throws IOException {
    byte[] encoded = withPublicPoint(key);
    writeAtomically(path, true, w -> w.writeObject(new PemObject("PRIVATE KEY", encoded)));
  }

  /** {@code key}'s PKCS#8 encoding, with the public point added to an EC key that lacks it. */
  static byte[] withPublicPoint(PrivateKey key) throws IOException {
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
    if (!(key instanceof ECPrivateKey ec)) {
      return info.getEncoded();
    }
    var inner = org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(info.parsePrivateKey());
    if (inner.getPublicKey() != null) {
      return info.getEncoded();
    }
    var curve = ASN1ObjectIdentifier.getInstance(info.getPrivateKeyAlgorithm().getParameters());
    X9ECParameters params = ECNamedCurveTable.getByOID(curve);
    if (params == null) {
      throw new IOException("unknown EC curve " + curve);
    }
    byte[] point = params.getG().multiply(ec.getS()).normalize().getEncoded(false);
    var full =
        new org.bouncycastle.asn1.sec.ECPrivateKey(
            params.getN().bitLength(), ec.getS(), new DERBitString(point), null);
    return new PrivateKeyInfo(info.getPrivateKeyAlgorithm(), full).getEncoded();
  }

  private interface PemBody {
    void write(JcaPEMWriter w) throws IOException;
  }

  private static void writeAtomically(Path path, boolean secret, PemBody body) throws IOException {
    Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(
        tmp,
        PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--")));
    try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.US_ASCII);
        JcaPEMWriter w = new JcaPEMWriter(out)) {
      body.write(w);
    }
    Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
