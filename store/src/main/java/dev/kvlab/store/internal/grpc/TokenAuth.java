package dev.kvlab.store.internal.grpc;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.Executor;

/**
 * The control plane's shared-secret check: a client sends {@code authorization: Bearer <token>}; the server
 * compares it in constant time. Required when the master binds a non-loopback address.
 */
public final class TokenAuth {

    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private TokenAuth() {}

    /** Server side: refuses calls without the token. */
    public static ServerInterceptor require(String token) {
        byte[] want = sha256(("Bearer " + token).getBytes(StandardCharsets.UTF_8));
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                String got = headers.get(AUTHORIZATION);
                byte[] have = sha256(got == null ? new byte[0] : got.getBytes(StandardCharsets.UTF_8));
                if (!MessageDigest.isEqual(
                        want, have)) { // digests of equal length: neither content nor length leaks through timing
                    call.close(Status.UNAUTHENTICATED.withDescription("missing or wrong token"), new Metadata());
                    return new ServerCall.Listener<>() {};
                }
                return next.startCall(call, headers);
            }
        };
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** Client side: attaches the token to every call. */
    public static CallCredentials bearer(String token) {
        return new CallCredentials() {
            @Override
            public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
                Metadata m = new Metadata();
                m.put(AUTHORIZATION, "Bearer " + token);
                applier.apply(m);
            }
        };
    }
}
