package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BackingHeaderTest {
    private static final UUID SET = new UUID(0xAAAA, 0x1111);
    private static final UUID DEVICE = new UUID(0xBBBB, 0x2222);
    private static final AttachedBacking SLOT = new AttachedBacking(DEVICE, 1L << 30, 1 << 20, 3, "db");

    @Test
    void randomHeadersRoundTripAndEveryFlippedBitIsRejected() {
        // Proves the backing header round-trips random values and rejects any single-bit error.
        Prng prng = new Prng(11);
        for (int i = 0; i < 100; i++) {
            BackingHeader header = new BackingHeader(Samples.uuid(prng), Samples.uuid(prng),
                    (1 + prng.nextLong(1000)) * 4096, (1 + prng.nextLong(1L << 40)) * 512);
            assertThat(BackingHeader.decode(header.encode(), 0).value()).isEqualTo(header);
        }
        byte[] bytes = new BackingHeader(DEVICE, SET, 1 << 20, 1L << 30).encode();
        for (int bit = 0; bit < bytes.length * 8; bit++) {
            DecodeResult<BackingHeader> result = BackingHeader.decode(Samples.flip(bytes, bit), 0);
            assertThat(result.isOk()).as("bit %d", bit).isFalse();
            assertThat(result.error().message()).contains("backing header");
        }
    }

    @Test
    void matchingDeviceIsAccepted() {
        // Proves the checks pass for the right device of the right set at the right size.
        var header = BackingHeader.decode(new BackingHeader(DEVICE, SET, 1 << 20, 1L << 30).encode(), 0);
        assertThat(AttachCheck.check(header, SLOT, SET, (1 << 20) + (1L << 30))).isEmpty();
    }

    @Test
    void wrongDeviceOtherSetAndResizedAreRefusedWithFoundAndExpected() {
        // Proves each of the three refusals names what was found and what was expected.
        UUID other = new UUID(9, 9);
        var wrong = BackingHeader.decode(new BackingHeader(other, SET, 1 << 20, 1L << 30).encode(), 0);
        List<AttachCheck.Refusal> wrongRefusals = AttachCheck.check(wrong, SLOT, SET, (1 << 20) + (1L << 30));
        assertThat(wrongRefusals).singleElement().satisfies(r -> {
            assertThat(r.reason()).isEqualTo(AttachCheck.Reason.WRONG_DEVICE);
            assertThat(r.message()).contains("found backing uuid " + other).contains("expected " + DEVICE);
        });

        var foreign = BackingHeader.decode(new BackingHeader(DEVICE, other, 1 << 20, 1L << 30).encode(), 0);
        assertThat(AttachCheck.check(foreign, SLOT, SET, (1 << 20) + (1L << 30))).singleElement().satisfies(r -> {
            assertThat(r.reason()).isEqualTo(AttachCheck.Reason.OTHER_CACHE_SET);
            assertThat(r.message()).contains("found cache set " + other).contains("expected " + SET);
        });

        var header = BackingHeader.decode(new BackingHeader(DEVICE, SET, 1 << 20, 1L << 30).encode(), 0);
        assertThat(AttachCheck.check(header, SLOT, SET, 1L << 30)).singleElement().satisfies(r -> {
            assertThat(r.reason()).isEqualTo(AttachCheck.Reason.RESIZED);
            assertThat(r.message()).contains("found device size " + (1L << 30))
                    .contains("expected " + ((1 << 20) + (1L << 30)));
        });
        assertThat(AttachCheck.check(header, SLOT, SET, 2L << 30)).as("a larger device keeps its volume").isEmpty();

        var unreadable = BackingHeader.decode(new byte[4096], 0);
        assertThat(AttachCheck.check(unreadable, SLOT, SET, 0)).singleElement()
                .satisfies(r -> assertThat(r.reason()).isEqualTo(AttachCheck.Reason.UNREADABLE_HEADER));
    }
}
