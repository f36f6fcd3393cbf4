package io.bayeux.transport.internal.http;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * The gzip compressors of one server (and level): one deflater and checksum per event-loop
 * thread, reset after each use and never made again, shared by every connection on that
 * thread. Used by {@link GzipResponses} for full responses and by
 * {@link EncodedResponse#encodeGzipped} for replies made whole on the loop. Thread-safe: each
 * thread gets its own.
 */
public final class GzipCompressors {
    /** The gzip member header: deflate, no flags, no time, no extra flags, unknown OS. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    private static final int TRAILER = 8;
    private final FastThreadLocal<Compressor> local;

    /** Deflaters at {@code level}: 1 fastest to 9 smallest. */
    public GzipCompressors(int level) {
        if (level < 1 || level > 9) {
            throw new IllegalArgumentException("gzip level must be 1 to 9: " + level);
        }
        this.local = new FastThreadLocal<>() {
            @Override
            protected Compressor initialValue() {
                return new Compressor(level);
            }

            @Override
            protected void onRemoval(Compressor compressor) {
                compressor.deflater.end();
            }
        };
    }

    private static final class Compressor {
        final Deflater deflater;
        final CRC32 crc = new CRC32();

        Compressor(int level) {
            deflater = new Deflater(level, true);
        }
    }

    /** Room enough for {@code length} bytes gzipped (deflate's worst case is a few bytes per 16 KiB block over the input). */
    static int maxGzippedLength(int length) {
        return HEADER.length + length + (length >> 12) + 64 + TRAILER;
    }

    /**
     * Writes one gzip member of {@code input}'s bytes (left as they are) at {@code out}'s writer
     * index, {@code out} grown if it must be, with the calling thread's deflater: on an event loop.
     */
    void gzip(ByteBuffer input, ByteBuf out) {
        Compressor compressor = local.get();
        Deflater deflater = compressor.deflater;
        CRC32 crc = compressor.crc;
        int length = input.remaining();
        try {
            out.writeBytes(HEADER);
            crc.update(input.duplicate());
            deflater.setInput(input.duplicate());
            deflater.finish();
            while (!deflater.finished()) {
                if (!out.isWritable(64)) {
                    out.ensureWritable(Math.max(1024, out.writableBytes()));
                }
                ByteBuffer target = out.internalNioBuffer(out.writerIndex(), out.writableBytes());
                int wrote = deflater.deflate(target);
                out.writerIndex(out.writerIndex() + wrote);
            }
            out.writeIntLE((int) crc.getValue());
            out.writeIntLE(length);
        } finally {
            deflater.reset();
            crc.reset();
        }
    }
}
