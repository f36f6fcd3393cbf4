package io.bayeux.server.internal;

import io.bayeux.api.Message;
import io.bayeux.api.server.LocalSession;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalSessionTest extends ServerTestSupport {
    @Test
    void localSessionHandshakesSubscribesPublishesAndReceivesWithoutANetwork() {
        LocalSession service = server.newLocalSession("service");
        List<Message> replies = new CopyOnWriteArrayList<>();
        service.handshake(null, replies::add);
        assertEquals(1, replies.size());
        assertTrue(replies.get(0).isSuccessful());
        assertTrue(service.isHandshook());
        assertTrue(service.isConnected());
        assertNotNull(service.getServerSession());
        assertTrue(service.getServerSession().isLocalSession());

        List<Object> received = new CopyOnWriteArrayList<>();
        service.getChannel("/chat/*").subscribe((channel, message) -> received.add(message.getData()));

        TestClient remote = new TestClient(server, true).connected();
        remote.publish("/chat/lobby", "from remote");
        assertEquals(List.of("from remote"), received);

        remote.subscribe("/chat/lobby");
        List<Message> publishReplies = new CopyOnWriteArrayList<>();
        service.getChannel("/chat/lobby").publish(Map.of("text", "from service"), publishReplies::add);
        assertTrue(publishReplies.get(0).isSuccessful());
        assertEquals(Map.of("text", "from service"), remote.nextPushed().get("data"));
    }

    @Test
    void localSessionsNeverExpire() {
        LocalSession service = server.newLocalSession("service");
        service.handshake();
        scheduler.advance(120_000);
        assertNotNull(server.getSession(service.getId()));
    }

    @Test
    void localSessionMayListenToMetaChannelsAndSubscribeToServiceChannels() {
        LocalSession service = server.newLocalSession("service");
        service.handshake();
        List<Message> replies = new CopyOnWriteArrayList<>();
        service.getChannel("/meta/subscribe").addListener((io.bayeux.api.client.ClientSessionChannel.MessageListener) (c, m) -> replies.add(m));
        service.getChannel("/service/**").subscribe((c, m) -> { }, replies::add);
        assertEquals(2, replies.size(), "the callback and the meta listener both saw the reply");
        assertTrue(replies.get(0).isSuccessful(), "local sessions may subscribe to service channels: " + replies.get(0));
    }

    @Test
    void disconnectRemovesTheServerSession() {
        LocalSession service = server.newLocalSession("service");
        service.handshake();
        String id = service.getId();
        service.disconnect();
        assertNull(server.getSession(id));
        assertFalse(service.isHandshook());
    }

    @Test
    void remoteCallReachesTheServiceAndTheReplyTheCaller() {
        server.createChannelIfAbsent("/service/double").getReference().addListener(
                (io.bayeux.api.server.ServerChannel.MessageListener) (from, channel, message) -> {
                    var reply = server.newMessage();
                    reply.setChannel(channel.getId());
                    reply.setId(message.getId());
                    reply.setSuccessful(true);
                    reply.setData(((Number) message.getData()).intValue() * 2);
                    from.deliver(null, reply, io.bayeux.api.Promise.noop());
                    return true;
                });
        LocalSession caller = server.newLocalSession("caller");
        caller.handshake();
        List<Message> answers = new CopyOnWriteArrayList<>();
        caller.remoteCall("double", 21, answers::add);
        assertEquals(1, answers.size(), answers.toString());
        assertTrue(answers.get(0).isSuccessful());
        assertEquals(42, ((Number) answers.get(0).getData()).intValue());
    }
}
