package dev.kvlab.store.api;

/**
 * What a key and a tenant may look like, for every backend. A key is 1 to {@value #MAX_KEY_LENGTH} printable
 * ASCII characters without spaces ({@code 0x21..0x7E}); a tenant is 1 to {@value #MAX_TENANT_LENGTH} of
 * {@code [A-Za-z0-9._-]}. Backends store a key as {@code tenant/key}: since a tenant has no {@code /}, no key of
 * one tenant can name another tenant's object.
 */
public final class KeyRules {

    public static final int MAX_KEY_LENGTH = 512;
    public static final int MAX_TENANT_LENGTH = 64;

    private KeyRules() {}

    /** {@link IllegalArgumentException} with the reason when {@code key} is not a valid key. */
    public static String checkKey(String key) {
        String why = whyBadKey(key);
        if (why != null) throw new IllegalArgumentException(why);
        return key;
    }

    /** Null when valid, else a one-line reason. Allocation-free for valid keys. */
    public static String whyBadKey(String key) {
        if (key == null || key.isEmpty()) return "key is empty";
        int n = key.length();
        if (n > MAX_KEY_LENGTH) return "key is " + n + " characters long (at most " + MAX_KEY_LENGTH + ")";
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (c < 0x21 || c > 0x7E)
                return "key has a character outside printable ASCII at index " + i + " (code " + (int) c + ")";
        }
        return null;
    }

    public static String checkTenant(String tenant) {
        if (tenant == null || tenant.isEmpty()) throw new IllegalArgumentException("tenant is empty");
        if (tenant.length() > MAX_TENANT_LENGTH)
            throw new IllegalArgumentException("tenant is longer than " + MAX_TENANT_LENGTH + " characters");
        for (int i = 0; i < tenant.length(); i++) {
            char c = tenant.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!ok)
                throw new IllegalArgumentException(
                        "tenant '" + tenant + "' has a character outside [A-Za-z0-9._-] at index " + i);
        }
        return tenant;
    }

    /** The stored name of {@code key} for {@code tenant}; validates both. */
    public static String qualify(String tenant, String key) {
        checkKey(key);
        return tenant + "/" + key;
    }
}
