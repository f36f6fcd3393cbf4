package io.bayeux.server.internal;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.Authorizer.Operation;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.DefaultSecurityPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.server.internal.Deliveries.data;
import static io.bayeux.server.internal.Deliveries.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Authorizers and the security policy, as remote clients see them in their replies. */
class AuthorizationTest extends ServerTestSupport {
    private void guard(String channel, Authorizer... authorizers) {
        server.createChannelIfAbsent(channel, c -> {
            for (Authorizer authorizer : authorizers) {
                c.addAuthorizer(authorizer);
            }
        });
    }

    /** An authorizer that gives {@code result} for {@code operation} and grants the others. */
    private static Authorizer only(Operation operation, Authorizer.Result result) {
        return (op, channel, session, message) -> op == operation ? result : Authorizer.Result.grant();
    }

    // --- combining authorizers

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void grantingAuthorizerOnWildcardAllowsEveryOperationOnItsChildren(boolean push) {
        List<String> asked = new CopyOnWriteArrayList<>();
        guard("/chat/**", (operation, channel, session, message) -> {
            asked.add(operation + " " + channel.getId() + " " + (session == null ? null : session.getId()));
            return Authorizer.Result.grant();
        });
        TestClient alice = new TestClient(server, push).connected();

        assertEquals(true, alice.subscribe("/chat/room").get("successful"));
        assertEquals(true, alice.publish("/chat/room", "hi").get("successful"));
        assertEquals(List.of(
                "CREATE /chat/room " + alice.clientId(),
                "SUBSCRIBE /chat/room " + alice.clientId(),
                "PUBLISH /chat/room " + alice.clientId()), asked);
    }

    @Test
    void grantAndIgnoreTogetherAllow() {
        guard("/chat/**", (op, channel, session, message) -> Authorizer.Result.ignore(), Authorizer.grantAll());
        TestClient alice = new TestClient(server, false).connected();
        assertEquals(true, alice.subscribe("/chat/room").get("successful"));
        assertEquals(true, alice.publish("/chat/room", "hi").get("successful"));
    }

    @Test
    void oneDenyWinsOverGrantsWhereverTheAuthorizersLive() {
        guard("/**", Authorizer.grantAll());
        guard("/chat/**", Authorizer.grantAll());
        guard("/chat/room", only(Operation.PUBLISH, Authorizer.Result.deny("room_closed")), Authorizer.grantAll());
        TestClient alice = new TestClient(server, false).connected();

        Map<String, Object> reply = alice.publish("/chat/room", "hi");
        assertEquals(false, reply.get("successful"));
        assertEquals("403:room_closed:publish_denied", reply.get("error"));
        assertEquals(true, alice.publish("/chat/other", "hi").get("successful"), "the deny is the room's only");
    }

    @Test
    void ignoringOnlyDeniesAsNotGranting() {
        guard("/chat/**", (op, channel, session, message) -> op == Operation.CREATE ? Authorizer.Result.grant() : Authorizer.Result.ignore());
        TestClient alice = new TestClient(server, false).connected();

        Map<String, Object> publish = alice.publish("/chat/room", "hi");
        assertEquals(false, publish.get("successful"));
        assertEquals("403:denied_by_not_granting:publish_denied", publish.get("error"));

        Map<String, Object> subscribe = alice.subscribe("/chat/room");
        assertEquals(false, subscribe.get("successful"));
        assertEquals("403:denied_by_not_granting:subscribe_denied", subscribe.get("error"));
    }

    @Test
    void ignoringOnlyAuthorizerDeniesCreation() {
        guard("/chat/**", (op, channel, session, message) -> Authorizer.Result.ignore());
        TestClient alice = new TestClient(server, false).connected();
        assertEquals("403:denied_by_not_granting:channel_create_denied", alice.publish("/chat/room", "hi").get("error"));
        assertEquals("403:denied_by_not_granting:create_denied", alice.subscribe("/chat/room").get("error"));
        assertNull(server.getChannel("/chat/room"));
    }

    // --- deny reasons

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void subscribeDenialCarriesTheReason(boolean push) {
        guard("/chat/**", only(Operation.SUBSCRIBE, Authorizer.Result.deny("members_only")));
        TestClient alice = new TestClient(server, push).connected();
        Map<String, Object> reply = alice.subscribe("/chat/room");
        assertEquals(false, reply.get("successful"));
        assertEquals("403:members_only:subscribe_denied", reply.get("error"));
        assertEquals("/chat/room", reply.get("subscription"));
        assertTrue(server.getChannel("/chat/room").getSubscribers().isEmpty());
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void publishDenialCarriesTheReasonAndNobodyReceivesTheMessage(boolean push) {
        guard("/chat/**", only(Operation.PUBLISH, Authorizer.Result.deny("read_only")));
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));

        Map<String, Object> reply = alice.publish("/chat/room", "hi");
        assertEquals(false, reply.get("successful"));
        assertEquals("403:read_only:publish_denied", reply.get("error"));
        assertTrue(drain(bob).isEmpty());
    }

    @Test
    void createDenialCarriesTheReasonOnPublishAndOnSubscribe() {
        guard("/chat/**", only(Operation.CREATE, Authorizer.Result.deny("no_new_rooms")));
        TestClient alice = new TestClient(server, false).connected();

        Map<String, Object> publish = alice.publish("/chat/room", "hi");
        assertEquals(false, publish.get("successful"));
        assertEquals("403:no_new_rooms:channel_create_denied", publish.get("error"));

        Map<String, Object> subscribe = alice.subscribe("/chat/room");
        assertEquals(false, subscribe.get("successful"));
        assertEquals("403:no_new_rooms:create_denied", subscribe.get("error"));
        assertNull(server.getChannel("/chat/room"));

        server.createChannelIfAbsent("/chat/room");
        assertEquals(true, alice.subscribe("/chat/room").get("successful"), "an existing channel needs no creation");
        assertEquals(true, alice.publish("/chat/room", "hi").get("successful"));
    }

    @Test
    void throwingAuthorizerDenies() {
        guard("/chat/**", (op, channel, session, message) -> {
            throw new IllegalStateException("test: a broken authorizer");
        }, Authorizer.grantAll());
        TestClient alice = new TestClient(server, false).connected();
        Map<String, Object> reply = alice.publish("/chat/room", "hi");
        assertEquals(false, reply.get("successful"));
        assertTrue(((String) reply.get("error")).startsWith("403:"), reply.toString());
    }

    // --- the security policy

    @Test
    void withoutAuthorizersTheSecurityPolicyDecides() {
        server.setSecurityPolicy(new DefaultSecurityPolicy() {
            @Override
            public boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
                return !channel.getId().startsWith("/readonly/");
            }
        });
        TestClient alice = new TestClient(server, false).connected();
        Map<String, Object> reply = alice.publish("/readonly/news", "hi");
        assertEquals(false, reply.get("successful"));
        assertEquals("403:denied_by_security_policy:publish_denied", reply.get("error"));
        assertEquals(true, alice.subscribe("/readonly/news").get("successful"));
        assertEquals(true, alice.publish("/chat/room", "hi").get("successful"));
    }

    @Test
    void securityPolicyIsAskedBeforeGrantingAuthorizers() {
        guard("/chat/**", Authorizer.grantAll());
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
                return false;
            }
        });
        TestClient alice = new TestClient(server, false).connected();
        assertEquals("403:denied_by_security_policy:subscribe_denied", alice.subscribe("/chat/room").get("error"));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void refusedHandshakeAdvisesNotToReconnect(boolean push) {
        server.setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
                return false;
            }
        });
        TestClient alice = new TestClient(server, push);
        Map<String, Object> reply = alice.handshake(null);
        assertEquals(false, reply.get("successful"));
        assertEquals("403::handshake_denied", reply.get("error"));
        assertEquals("none", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
        assertTrue(server.getSessions().isEmpty());
    }

    @Test
    void remoteClientCannotSubscribeToMetaChannels() {
        TestClient alice = new TestClient(server, false).connected();

        Map<String, Object> all = alice.subscribe("/meta/**");
        assertEquals(false, all.get("successful"));
        assertEquals("403:denied_by_security_policy:create_denied", all.get("error"));
        assertNull(server.getChannel("/meta/**"));

        Map<String, Object> connect = alice.subscribe("/meta/connect");
        assertEquals(false, connect.get("successful"));
        assertEquals("403:denied_by_security_policy:subscribe_denied", connect.get("error"));
        assertTrue(server.getChannel("/meta/connect").getSubscribers().isEmpty());
    }

    @Test
    void remoteClientCannotPublishToMetaChannels() {
        TestClient alice = new TestClient(server, false).connected();
        Map<String, Object> reply = alice.publish("/meta/foo", "hi");
        assertEquals(false, reply.get("successful"));
        assertEquals("403:denied_by_security_policy:channel_create_denied", reply.get("error"));
        assertNull(server.getChannel("/meta/foo"));
    }

    @Test
    void defaultPolicyAllowsLocalSessionsOnMetaChannels() {
        LocalSession local = server.newLocalSession("service");
        local.handshake();
        assertTrue(local.isHandshook());
        List<Message> replies = new CopyOnWriteArrayList<>();
        local.getChannel("/meta/subscribe").addListener((ClientSessionChannel.MessageListener) (channel, message) -> replies.add(message));

        ServerMessage.Mutable subscribe = server.newMessage();
        subscribe.setChannel("/meta/subscribe");
        subscribe.setId("s1");
        subscribe.put(Message.SUBSCRIPTION_FIELD, List.of("/meta/**", "/meta/connect"));
        ((LocalSessionImpl) local).sendBatch(List.of(subscribe));

        assertEquals(1, replies.size(), replies.toString());
        assertTrue(replies.get(0).isSuccessful(), replies.toString());
        assertNotNull(server.getChannel("/meta/**"));
        assertEquals(1, server.getChannel("/meta/connect").getSubscribers().size());
    }

    @Test
    void localSessionPublishesWhereRemoteClientsMayAndIsDelivered() {
        TestClient bob = new TestClient(server, false).connected();
        bob.subscribe("/chat/room");
        LocalSession local = server.newLocalSession("service");
        local.handshake();
        List<Message> replies = new CopyOnWriteArrayList<>();
        local.getChannel("/chat/room").publish("from the server", replies::add);
        assertEquals(1, replies.size());
        assertTrue(replies.get(0).isSuccessful(), replies.toString());
        assertEquals(List.of("from the server"), data(drain(bob)));
    }

    @Test
    void defaultPolicyAnswersAsDocumented() {
        DefaultSecurityPolicy policy = new DefaultSecurityPolicy();
        LocalSession local = server.newLocalSession("service");
        local.handshake();
        ServerSession localSession = local.getServerSession();
        TestClient alice = new TestClient(server, false).connected();
        ServerSession remote = server.getSession(alice.clientId());
        ServerChannel metaConnect = server.getChannel("/meta/connect");
        ServerChannel chat = server.createChannelIfAbsent("/chat/room").getReference();

        assertTrue(policy.canHandshake(server, remote, null));
        assertTrue(policy.canCreate(server, remote, "/chat/room", null));
        assertFalse(policy.canCreate(server, remote, "/meta/foo", null));
        assertTrue(policy.canCreate(server, localSession, "/meta/foo", null));
        assertFalse(policy.canSubscribe(server, remote, metaConnect, null));
        assertTrue(policy.canSubscribe(server, localSession, metaConnect, null));
        assertTrue(policy.canSubscribe(server, remote, chat, null));
        assertTrue(policy.canPublish(server, remote, chat, null));
        assertFalse(policy.canPublish(server, remote, metaConnect, null));
        assertFalse(policy.canPublish(server, null, chat, null), "publishing needs a handshaken session");
    }
}
