package io.bayeux.load;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.net.URI;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ScenarioOptionsTest {
    private static Scenario parse(String... args) {
        ScenarioOptions options = new ScenarioOptions();
        new CommandLine(options).parseArgs(args);
        return options.toScenario(URI.create("http://127.0.0.1:8080/cometd"));
    }

    @Test
    void defaultsAreTheClassicChatBenchmark() {
        Scenario s = parse();
        assertEquals(1000, s.clients());
        assertEquals(100, s.rooms());
        assertEquals(10, s.roomsPerClient());
        assertEquals(10, s.batchSize());
        assertEquals(Duration.ofMillis(10), s.batchInterval());
        assertEquals(1000.0, s.offeredRate(), 1e-9);
        assertEquals("websocket", s.transport());
        assertEquals(false, s.oneFrameBatches(), "each message from its own client, in a frame of its own");
        assertEquals(false, s.spread(), "a batch's messages at one instant");
        assertEquals(true, s.offerDeflate(), "the clients offer permessage-deflate, as browsers do");
    }

    @Test
    void clientsOfferNoCompressionWhenToldNotTo() {
        Scenario s = parse("--no-client-compression", "--rate", "200");
        assertEquals(false, s.offerDeflate());
        assertEquals(true, s.withOfferDeflate(true).offerDeflate());
    }

    @Test
    void trafficShapeOptions() {
        Scenario s = parse("--one-frame-batches", "--spread");
        assertEquals(true, s.oneFrameBatches());
        assertEquals(true, s.spread());
        assertEquals(s, s.withTraffic(true, true));
        assertEquals(false, s.withTraffic(false, true).oneFrameBatches());
    }

    @Test
    void rateSetsTheBatchInterval() {
        assertEquals(Duration.ofMillis(50), parse("--rate", "200").batchInterval());
    }

    @Test
    void deliveryRateDividesByTheMeanSubscribersPerMessage() {
        Scenario s = parse("--clients", "10", "--rooms", "1", "--rooms-per-client", "1", "--delivery-rate", "1000");
        // Ten subscribers per message: 100 published msg/s.
        assertEquals(100.0, s.offeredRate(), 1e-6);
    }

    @Test
    void durationsTakeUnits() {
        assertEquals(Duration.ofMinutes(10), ScenarioOptions.parseDuration("10m", "--soak"));
        assertEquals(Duration.ofMillis(1500), ScenarioOptions.parseDuration("1.5", "--soak"));
        assertEquals(Duration.ofMillis(500), ScenarioOptions.parseDuration("500ms", "--soak"));
        assertEquals(Duration.ofHours(2), ScenarioOptions.parseDuration("2h", "--soak"));
        assertThrows(IllegalArgumentException.class, () -> ScenarioOptions.parseDuration("soon", "--soak"));
    }

    @Test
    void badValuesFailWithTheValue() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> parse("--rooms", "5", "--rooms-per-client", "6"));
        assertEquals("--rooms-per-client (6) cannot exceed --rooms (5)", x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("--transport", "carrier-pigeon"));
    }

    @Test
    void stalledClientsAreAmongTheClientsAndNeitherReadNorPublish() {
        Scenario s = parse("--clients", "51", "--stalled-clients", "1", "--rooms", "1", "--rooms-per-client", "1", "--delivery-rate", "1000");
        assertEquals(51, s.clients());
        assertEquals(50, s.readers());
        // Fifty readers per message, the stalled one not counted: 20 published msg/s.
        assertEquals(20.0, s.offeredRate(), 1e-6);
    }

    @Test
    void stalledClientsNeedWebSocketAndAReader() {
        assertThrows(IllegalArgumentException.class, () -> parse("--clients", "2", "--stalled-clients", "2"));
        assertThrows(IllegalArgumentException.class, () -> parse("--clients", "2", "--stalled-clients", "-1"));
        assertThrows(IllegalArgumentException.class, () -> parse("--clients", "2", "--stalled-clients", "1", "--transport", "long-polling"));
        assertThrows(IllegalArgumentException.class, () -> parse("--clients", "2", "--stalled-clients", "1", "--idle"));
    }

    @Test
    void cutForKeepsACutClientAwayAndRecoverTurnsRecoveryOn() {
        Scenario s = parse("--cut-every", "0.5", "--cut-for", "3s", "--recover", "--delivery-rate", "1000");
        assertEquals(Duration.ofMillis(500), s.cutEvery());
        assertEquals(Duration.ofSeconds(3), s.cutFor());
        assertEquals(true, s.recover());
        Scenario plain = parse();
        assertEquals(null, plain.cutFor());
        assertEquals(false, plain.recover());
    }

    @Test
    void cutForNeedsCutEveryAndAPositiveDuration() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> parse("--cut-for", "3s"));
        assertEquals("--cut-for needs --cut-every and a positive duration: PT3S", x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("--cut-every", "1", "--cut-for", "0s"));
        assertThrows(IllegalArgumentException.class, () -> parse("--cut-every", "1", "--cut-for", "later"));
    }
}
