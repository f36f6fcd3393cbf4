package io.bayeux.transport.internal.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpStatusClass;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The server's HTTP/1.1 codec: Netty's {@code HttpServerCodec} as two handlers, a request decoder
 * and a response encoder that share the methods of the requests still to be answered (a
 * response to {@code HEAD} goes without its body, as the server codec does), so that the
 * WebSocket handshake finds and replaces them as it does the server codec. The encoder also
 * writes {@link EncodedResponse}s, whose status line, headers and body are bytes already: a
 * Bayeux response costs one buffer and one write, not a header object, its encoding and a
 * second buffer for the body.
 *
 * <p>Both halves are confined to the connection's event loop.
 */
public final class HttpCodec {
    public static final String DECODER_NAME = "httpDecoder";
    public static final String ENCODER_NAME = "httpEncoder";

    private HttpCodec() {
    }

    /**
     * Adds the encoder, then the decoder, at the end of {@code pipeline}. The encoder comes first:
     * the WebSocket handshake puts its frame decoder in the decoder's place and its frame encoder
     * before the encoder, and what the frame decoder writes itself (the close frame of a protocol
     * error) must pass the frame encoder.
     */
    public static void addLast(ChannelPipeline pipeline, HttpDecoderConfig config) {
        ArrayDeque<HttpMethod> methods = new ArrayDeque<>(2);
        pipeline.addLast(ENCODER_NAME, new ResponseEncoder(methods));
        pipeline.addLast(DECODER_NAME, new RequestDecoder(config, methods));
    }

    /** Requests, each method noted for the encoder. */
    static final class RequestDecoder extends HttpRequestDecoder {
        private final ArrayDeque<HttpMethod> methods;

        RequestDecoder(HttpDecoderConfig config, ArrayDeque<HttpMethod> methods) {
            super(config);
            this.methods = methods;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            int before = out.size();
            super.decode(ctx, buffer, out);
            for (int i = before, n = out.size(); i < n; i++) {
                if (out.get(i) instanceof HttpRequest request) {
                    methods.add(request.method());
                }
            }
        }
    }

    /** Responses, each answering the oldest request not answered yet. */
    static final class ResponseEncoder extends HttpResponseEncoder {
        private final ArrayDeque<HttpMethod> methods;
        /** The method of the request the response being encoded answers. */
        private HttpMethod method;

        ResponseEncoder(ArrayDeque<HttpMethod> methods) {
            this.methods = methods;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof EncodedResponse encoded) {
                // Made only for a POST: its body is always sent.
                methods.poll();
                ctx.write(encoded.content(), promise);
                return;
            }
            super.write(ctx, msg, promise);
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse msg) {
            method = methods.poll();
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
        }

        @Override
        protected void sanitizeHeadersBeforeEncode(HttpResponse msg, boolean isAlwaysEmpty) {
            if (!isAlwaysEmpty && HttpMethod.CONNECT.equals(method) && msg.status().codeClass() == HttpStatusClass.SUCCESS) {
                // A successful CONNECT answer tunnels: no body framing.
                msg.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
                return;
            }
            super.sanitizeHeadersBeforeEncode(msg, isAlwaysEmpty);
        }
    }
}
