package io.bayeux.transport;

import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLContext;
import java.security.GeneralSecurityException;

/** Client TLS for self-signed test servers: trusts any certificate and checks no host name. Test only. */
final class TrustAll {
    private TrustAll() {
    }

    static SSLContext sslContext() throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
        return context;
    }
}
