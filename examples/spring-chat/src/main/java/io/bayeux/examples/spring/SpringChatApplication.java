package io.bayeux.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A chat on the Spring Boot starter: the server comes from {@code application.properties}, the
 * chat is the {@link ChatRoomService} bean, the page is {@code static/index.html}. Started by
 * {@code bin/spring-chat}; any {@code --bayeux.*} argument overrides a property.
 */
@SpringBootApplication
public class SpringChatApplication {
    public static void main(String[] args) {
        SpringApplication.run(SpringChatApplication.class, args);
    }
}
