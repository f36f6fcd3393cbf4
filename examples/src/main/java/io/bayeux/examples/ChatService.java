package io.bayeux.examples;

import io.bayeux.annotation.Configure;
import io.bayeux.annotation.Service;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.server.filter.DataFilterMessageListener;
import io.bayeux.server.filter.MaskWordsFilter;
import io.bayeux.server.filter.NoMarkupFilter;

/**
 * The chat rooms on {@code /chat/**}: anyone may subscribe and publish; markup is escaped and
 * a few words are masked before anyone receives a message.
 */
@Service("chat")
public final class ChatService {
    /** The words the demo masks. */
    public static final String[] MASKED_WORDS = {"darn", "heck"};

    @Configure("/chat/**")
    public void configureChat(ConfigurableServerChannel channel) {
        channel.setPersistent(true);
        channel.addListener(new DataFilterMessageListener(new NoMarkupFilter(), new MaskWordsFilter(MASKED_WORDS)));
    }
}
